#!/usr/bin/env bash
# Load figures for BENCHMARKS.md: seeds a club history, then measures the statistics reads and
# the appends (with and without read models) over HTTP, on SQLite and, when
# TABLETALLY_TEST_POSTGRES_URL is set, on PostgreSQL. Loopback only; every loop is bounded.
#
#   scripts/load.sh [GAMES] [PLAYERS]      # default 100000 games, 2000 players
#   APPEND_GAMES=500                       # games played on each server for the append figures
set -euo pipefail
cd "$(dirname "$0")/.."

GAMES="${1:-100000}"
PLAYERS="${2:-2000}"
APPEND_GAMES="${APPEND_GAMES:-500}"
source scripts/bench-common.sh

measure() {
    name=$1 url=$2
    echo "== $name: seeding $GAMES games for $PLAYERS players"
    token=$(/usr/bin/time -f "seed: %e s, max RSS %M KiB" "$BIN/tabletally-load" seed "$url" "$GAMES" "$PLAYERS")
    # PostgreSQL plans from table statistics; after a bulk load they are refreshed by hand, as
    # autovacuum would do in time (it is off on some machines, this one included).
    case "$url" in postgres*) psql "$url" -qc ANALYZE ;; esac
    start_server "$url" "" reads
    echo "== $name: statistics reads"
    "$BIN/tabletally-load" query "$BASE" "$token" 300
    stop_servers
    # Appends: two servers, A keeping the read models and B not (TABLETALLY_READ_MODELS=off,
    # which exists only for this comparison), one game each in turn, after a warm-up of each.
    # On PostgreSQL both serve the same database; SQLite serves one server per database, so B
    # gets a copy of it (the same history, the same machine, the same moment).
    url_b=$url
    case "$url" in sqlite://*)
        cp "${url#sqlite://}" "${url#sqlite://}.b"; url_b="$url.b" ;;
    esac
    start_server "$url" "" with; WITH=$BASE
    start_server "$url_b" "TABLETALLY_READ_MODELS=off" without; WITHOUT=$BASE
    "$BIN/tabletally-load" appends "$WITH" "$token" 20 >/dev/null
    "$BIN/tabletally-load" appends "$WITHOUT" "$token" 20 >/dev/null
    echo "== $name: appends, A with read models, B without ($APPEND_GAMES games each)"
    "$BIN/tabletally-load" compare "$WITH" "$WITHOUT" "$token" "$APPEND_GAMES"
    stop_servers
}

[ -n "${SKIP_SQLITE:-}" ] || measure sqlite "sqlite://$WORK/load.db"

if [ -n "${TABLETALLY_TEST_POSTGRES_URL:-}" ]; then
    DB="tabletally_load_$$"
    psql "$TABLETALLY_TEST_POSTGRES_URL" -qc "CREATE DATABASE $DB"
    PG_URL="${TABLETALLY_TEST_POSTGRES_URL%/*}/$DB"
    measure postgres "$PG_URL"   # the database is dropped on exit
fi
