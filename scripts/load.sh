#!/usr/bin/env bash
# Load figures for BENCHMARKS.md: seeds a club history, then measures the statistics reads and
# the appends (with and without read models) over HTTP, on SQLite and, when
# TABLETALLY_TEST_POSTGRES_URL is set, on PostgreSQL. Loopback only; every loop is bounded.
#
#   scripts/load.sh [GAMES] [PLAYERS]      # default 100000 games, 2000 players
set -euo pipefail
cd "$(dirname "$0")/.."

GAMES="${1:-100000}"
PLAYERS="${2:-2000}"
cargo build --quiet --release -p tabletally-api --bin tabletally -p tabletally-tests --bin tabletally-load
BIN="${CARGO_TARGET_DIR:-target}/release"
WORK=$(mktemp -d)
SERVER=""
cleanup() { [ -n "$SERVER" ] && kill "$SERVER" 2>/dev/null; rm -rf "$WORK"; }
trap cleanup EXIT

# Starts the server on $1 (extra environment in $2) and sets BASE.
start_server() {
    env $2 TABLETALLY_ADDR=127.0.0.1:0 DATABASE_URL="$1" RUST_LOG=warn,tabletally_api::startup=info NO_COLOR=1 \
        "$BIN/tabletally" >"$WORK/server.log" 2>&1 &
    SERVER=$!
    BASE=""
    for _ in $(seq 1 100); do
        BASE=$(sed -n 's/.*listening on \(http:\/\/[0-9.:]*\).*/\1/p' "$WORK/server.log" | head -1)
        [ -n "$BASE" ] && return 0
        sleep 0.1
    done
    cat "$WORK/server.log"; exit 1
}

stop_server() { kill "$SERVER"; wait "$SERVER" 2>/dev/null || true; SERVER=""; }

# Appends: each configuration gets a fresh server and a warm-up; the order is ABBA (with,
# without, without, with) so a drift of the machine or the database does not favour one side.
run_appends() {
    local label=$1 env=$2
    start_server "$url" "$env"
    "$BIN/tabletally-load" appends "$BASE" "$token" 20 >/dev/null
    echo "== $name: appends $label"
    "$BIN/tabletally-load" appends "$BASE" "$token" 150
    stop_server
}

measure() {
    name=$1 url=$2
    echo "== $name: seeding $GAMES games for $PLAYERS players"
    token=$(/usr/bin/time -f "seed: %e s, max RSS %M KiB" "$BIN/tabletally-load" seed "$url" "$GAMES" "$PLAYERS")
    start_server "$url" ""
    echo "== $name: statistics reads"
    "$BIN/tabletally-load" query "$BASE" "$token" 300
    stop_server
    run_appends "with read models (1)" ""
    run_appends "without read models (1)" "TABLETALLY_READ_MODELS=off"
    run_appends "without read models (2)" "TABLETALLY_READ_MODELS=off"
    run_appends "with read models (2)" ""
}

[ -n "${SKIP_SQLITE:-}" ] || measure sqlite "sqlite://$WORK/load.db"

if [ -n "${TABLETALLY_TEST_POSTGRES_URL:-}" ]; then
    DB="tabletally_load_$$"
    psql "$TABLETALLY_TEST_POSTGRES_URL" -qc "CREATE DATABASE $DB"
    PG_URL="${TABLETALLY_TEST_POSTGRES_URL%/*}/$DB"
    measure postgres "$PG_URL"
    psql "$TABLETALLY_TEST_POSTGRES_URL" -qc "DROP DATABASE $DB WITH (FORCE)"
fi
