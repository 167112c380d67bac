#!/usr/bin/env bash
# Export and import figures for BENCHMARKS.md: seeds one club of GAMES finished games on SQLite,
# then times `tabletally export` of it and `tabletally import` of that file into a new club of an
# empty database (SQLite, and PostgreSQL when TABLETALLY_TEST_POSTGRES_URL is set), each with its
# peak memory (max RSS).
#
#   scripts/portability.sh [GAMES] [PLAYERS]      # default 100000 games, 2000 players
set -euo pipefail
cd "$(dirname "$0")/.."

GAMES="${1:-100000}"
PLAYERS="${2:-2000}"
source scripts/bench-common.sh

# A new club in the (empty) database at $1: the server creates its schema and the club.
new_club_in() {
    start_server "$1" "" copy
    new_club "$BASE" id
    stop_servers
}

SOURCE="sqlite://$WORK/source.db"
echo "== seeding $GAMES games for $PLAYERS players"
token=$("$BIN/tabletally-load" seed "$SOURCE" "$GAMES" "$PLAYERS")
club=${token#tt.}; club=${club%%.*}

echo "== export"
/usr/bin/time -f "export: %e s, max RSS %M KiB" \
    env DATABASE_URL="$SOURCE" RUST_LOG=warn "$BIN/tabletally" export --club "$club" >"$WORK/club.ndjson"
echo "file: $(wc -l <"$WORK/club.ndjson") games, $(du -h "$WORK/club.ndjson" | cut -f1)"

import_into() {
    local name=$1 url=$2
    local copy
    copy=$(new_club_in "$url")
    echo "== import into $name"
    /usr/bin/time -f "import ($name): %e s, max RSS %M KiB" \
        env DATABASE_URL="$url" RUST_LOG=warn "$BIN/tabletally" import --club "$copy" <"$WORK/club.ndjson" \
        | python3 -c 'import json,sys; r=json.load(sys.stdin); print("imported", r["imported"], "failed", len(r["failed"]))'
}

import_into sqlite "sqlite://$WORK/copy.db"
if [ -n "${TABLETALLY_TEST_POSTGRES_URL:-}" ]; then
    DB="tabletally_portability_$$"
    psql "$TABLETALLY_TEST_POSTGRES_URL" -qc "CREATE DATABASE $DB"
    import_into postgres "${TABLETALLY_TEST_POSTGRES_URL%/*}/$DB"
fi
