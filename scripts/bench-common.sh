# Sourced by the benchmark scripts (load, tables, streams, portability): builds the release
# binaries, makes a scratch folder, starts and stops servers, creates clubs; on exit every
# server is stopped, the folder removed and the PostgreSQL database in $DB dropped.

# TABLETALLY_BIN: a folder holding both binaries already built (a before/after pair, say).
if [ -n "${TABLETALLY_BIN:-}" ]; then
    BIN="$TABLETALLY_BIN"
else
    cargo build --quiet --release -p tabletally-api --bin tabletally -p tabletally-tests --bin tabletally-load
    BIN="${CARGO_TARGET_DIR:-target}/release"
fi
WORK=$(mktemp -d)
SERVERS=()
DB=""
cleanup() {
    for pid in "${SERVERS[@]}"; do kill "$pid" 2>/dev/null || true; done
    rm -rf "$WORK"
    [ -z "$DB" ] || psql "$TABLETALLY_TEST_POSTGRES_URL" -qc "DROP DATABASE IF EXISTS $DB WITH (FORCE)"
}
trap cleanup EXIT

# Starts a server on the database URL $1 (extra environment in $2, log name $3); sets BASE to
# its address and SERVER to its pid.
start_server() {
    local log="$WORK/server-$3.log"
    # shellcheck disable=SC2086 # $2 is a list of VAR=value words
    env $2 TABLETALLY_ADDR=127.0.0.1:0 DATABASE_URL="$1" RUST_LOG=warn,tabletally_api::startup=info NO_COLOR=1 \
        "$BIN/tabletally" >"$log" 2>&1 &
    SERVER=$!
    SERVERS+=("$SERVER")
    BASE=""
    for _ in $(seq 1 100); do
        # The log may not exist yet: the server's redirection is made by its own process.
        BASE=$(sed -n 's/.*listening on \(http:\/\/[0-9.:]*\).*/\1/p' "$log" 2>/dev/null | head -1 || true)
        [ -n "$BASE" ] && return 0
        sleep 0.1
    done
    cat "$log"; exit 1
}

stop_servers() {
    for pid in "${SERVERS[@]}"; do kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; done
    SERVERS=()
}

# Creates a club on the server at $1 and prints its field $2 (`token` or `id`).
new_club() {
    curl -s -X POST "$1/v1/clubs" -H 'content-type: application/json' -d '{"name": "bench"}' \
        | python3 -c "import json, sys; print(json.load(sys.stdin)['$2'])"
}
