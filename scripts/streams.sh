#!/usr/bin/env bash
# Live-stream figures for BENCHMARKS.md: 50 tables appending while 500 streams follow them, on
# SQLite and, when TABLETALLY_TEST_POSTGRES_URL is set, on PostgreSQL. Loopback only; bounded.
#
#   scripts/streams.sh [GAMES] [STREAMS] [APPENDS]     # default 50 500 20
set -euo pipefail
cd "$(dirname "$0")/.."

GAMES="${1:-50}"
STREAMS="${2:-500}"
APPENDS="${3:-20}"
cargo build --quiet --release -p tabletally-api --bin tabletally -p tabletally-tests --bin tabletally-load
BIN="${CARGO_TARGET_DIR:-target}/release"
WORK=$(mktemp -d)
SERVER=""
DB=""
cleanup() {
    [ -z "$SERVER" ] || kill "$SERVER" 2>/dev/null || true
    rm -rf "$WORK"
    [ -z "$DB" ] || psql "$TABLETALLY_TEST_POSTGRES_URL" -qc "DROP DATABASE IF EXISTS $DB WITH (FORCE)"
}
trap cleanup EXIT

measure() {
    name=$1 url=$2
    log="$WORK/server-$name.log"
    # A club limit above the benchmark's streams; the per-server default (10000) holds them.
    env TABLETALLY_STREAMS_PER_CLUB=$((STREAMS + 10)) TABLETALLY_ADDR=127.0.0.1:0 DATABASE_URL="$url" \
        RUST_LOG=warn,tabletally_api::startup=info NO_COLOR=1 "$BIN/tabletally" >"$log" 2>&1 &
    SERVER=$!
    BASE=""
    for _ in $(seq 1 100); do
        BASE=$(sed -n 's/.*listening on \(http:\/\/[0-9.:]*\).*/\1/p' "$log" | head -1)
        [ -n "$BASE" ] && break
        sleep 0.1
    done
    [ -n "$BASE" ] || { cat "$log"; exit 1; }
    token=$(curl -s -X POST "$BASE/v1/clubs" -H 'content-type: application/json' -d '{"name": "bench"}' \
        | sed -n 's/.*"token":"\([^"]*\)".*/\1/p')
    echo "== $name"
    "$BIN/tabletally-load" streams "$BASE" "$token" "$GAMES" "$STREAMS" "$APPENDS" "$SERVER"
    kill "$SERVER"; wait "$SERVER" 2>/dev/null || true; SERVER=""
}

[ -n "${SKIP_SQLITE:-}" ] || measure sqlite "sqlite://$WORK/streams.db"

if [ -n "${TABLETALLY_TEST_POSTGRES_URL:-}" ]; then
    DB="tabletally_streams_$$"
    psql "$TABLETALLY_TEST_POSTGRES_URL" -qc "CREATE DATABASE $DB"
    measure postgres "${TABLETALLY_TEST_POSTGRES_URL%/*}/$DB"
fi
