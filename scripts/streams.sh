#!/usr/bin/env bash
# Live-stream figures for BENCHMARKS.md: 50 tables appending while 500 streams follow them, on
# SQLite and, when TABLETALLY_TEST_POSTGRES_URL is set, on PostgreSQL. Loopback only; bounded.
#
#   scripts/streams.sh [GAMES] [STREAMS] [APPENDS] [GAP_MS]     # default 50 500 20 0
#
# GAP_MS: each table waits that long after each answer before its next append (paced, as real
# tables are); 0, tables append back to back and saturate the CPUs.
set -euo pipefail
cd "$(dirname "$0")/.."

GAMES="${1:-50}"
STREAMS="${2:-500}"
APPENDS="${3:-20}"
GAP_MS="${4:-0}"
source scripts/bench-common.sh

measure() {
    name=$1 url=$2
    # A club limit above the benchmark's streams; the per-server default (10000) holds them.
    start_server "$url" "TABLETALLY_STREAMS_PER_CLUB=$((STREAMS + 10))" "$name"
    token=$(new_club "$BASE" token)
    echo "== $name"
    "$BIN/tabletally-load" streams "$BASE" "$token" "$GAMES" "$STREAMS" "$APPENDS" "$SERVER" "$GAP_MS"
    stop_servers
}

[ -n "${SKIP_SQLITE:-}" ] || measure sqlite "sqlite://$WORK/streams.db"

if [ -n "${TABLETALLY_TEST_POSTGRES_URL:-}" ]; then
    DB="tabletally_streams_$$"
    psql "$TABLETALLY_TEST_POSTGRES_URL" -qc "CREATE DATABASE $DB"
    measure postgres "${TABLETALLY_TEST_POSTGRES_URL%/*}/$DB"
fi
