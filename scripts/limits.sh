#!/usr/bin/env bash
# The floors under two of the issues' targets, measured with no tabletally server at all (for
# BENCHMARKS.md, "What this machine allows"): loopback only; bounded (about a minute).
#
#   scripts/limits.sh          # needs TABLETALLY_TEST_POSTGRES_URL for the PostgreSQL half
#
# 1. The kernel's cost of sending each append to 10 followers over loopback TCP, apart and back
#    to back (`tabletally-load frames`): what a live stream costs the machine at least.
# 2. PostgreSQL's commits of one ~2 KB row a second at 1, 8 and 16 connections, without and
#    with a `pg_notify` in the same statement: a notifying transaction holds one lock for the
#    whole database from before its commit until after its WAL is flushed, so such commits
#    follow each other however many connections send them.
set -euo pipefail
cd "$(dirname "$0")/.."

cargo build --quiet --release -p tabletally-tests --bin tabletally-load
BIN="${CARGO_TARGET_DIR:-target}/release"

echo "== the kernel's cost of a delivered frame"
"$BIN/tabletally-load" frames 10 20000 200 1500
"$BIN/tabletally-load" frames 10 20000 0 1500

if [ -z "${TABLETALLY_TEST_POSTGRES_URL:-}" ]; then
    echo "TABLETALLY_TEST_POSTGRES_URL is not set: PostgreSQL's commit rates skipped"
    exit 0
fi
DB="tabletally_limits_$$"
WORK=$(mktemp -d)
cleanup() {
    rm -rf "$WORK"
    psql "$TABLETALLY_TEST_POSTGRES_URL" -qc "DROP DATABASE IF EXISTS $DB WITH (FORCE)"
}
trap cleanup EXIT
psql "$TABLETALLY_TEST_POSTGRES_URL" -qc "CREATE DATABASE $DB"
URL="${TABLETALLY_TEST_POSTGRES_URL%/*}/$DB"
psql "$URL" -qc "CREATE TABLE raw_commits (position BIGSERIAL PRIMARY KEY, game_id TEXT NOT NULL, \
    seq BIGINT NOT NULL, data TEXT NOT NULL)"
ROW="INSERT INTO raw_commits (game_id, seq, data) VALUES ('0b6c3f0e-5d7e-4f3b-9a51-3c2d1e0f9a8b', 1, repeat('x', 2000))"
echo "$ROW;" >"$WORK/insert.sql"
echo "WITH x AS ($ROW RETURNING position) SELECT pg_notify('tabletally_appends', '0b6c3f0e 2') FROM x;" \
    >"$WORK/insert_notify.sql"

echo "== PostgreSQL: commits of one row a second (6 s each, in turn)"
for round in 1 2; do
    for script in insert insert_notify; do
        for clients in 1 8 16; do
            tps=$(pgbench "$URL" -n -c "$clients" -j 2 -T 6 -f "$WORK/$script.sql" 2>/dev/null |
                sed -n 's/^tps = \([0-9]*\).*/\1/p')
            printf 'round %s  %-14s %2s connections  %6s /s\n' "$round" "$script" "$clients" "$tps"
        done
    done
done
