#!/usr/bin/env bash
# Write-path figures for BENCHMARKS.md (issues 14, 31): 1, 8 and 32 tables playing Mint Condition at
# once — the whole cycle (create → three appends → score, for SECONDS), then appends only (round 1
# and its retraction in turn, each table to one game in progress at a time, for SECONDS) — each next to its own floor measured in the
# same run (the database's raw commit rate; for the cycle, one of its games' rows written again by
# hand, a transaction a request) and a bare actix-web handler; on SQLite and, when
# TABLETALLY_TEST_POSTGRES_URL is set, on PostgreSQL. A fresh server and database per run.
# Loopback only; every loop is bounded by time.
#
#   scripts/tables.sh [SECONDS] [TABLES...]      # default 20 s, 1 8 32 tables
#
# SECOND_SERVER=1: on PostgreSQL, a second server runs idle on the same database, so the one
# measured is not the database's only one (what a shared database costs; docs/deploy.md).
set -euo pipefail
cd "$(dirname "$0")/.."

SECONDS_EACH="${1:-20}"
shift || true
COUNTS=("$@")
[ ${#COUNTS[@]} -gt 0 ] || COUNTS=(1 8 32)
source scripts/bench-common.sh
ROWS=()

# One run: a fresh server on $2, a club, then `tabletally-load tables $3`.
measure() {
    local name=$1 url=$2 tables=$3
    if [ -n "${SECOND_SERVER:-}" ] && [[ $url == postgres* ]]; then
        start_server "$url" "" "$name-$tables-second"
    fi
    start_server "$url" "" "$name-$tables"
    local token
    token=$(new_club "$BASE" token)
    echo "== $name, $tables table(s), $SECONDS_EACH s (load average: $(cut -d' ' -f1-3 /proc/loadavg))"
    local out
    out=$("$BIN/tabletally-load" tables "$BASE" "$token" "$tables" "$SECONDS_EACH" "$url" "$SERVER")
    grep -v '^row' <<<"$out"
    ROWS+=("$name	$(grep '^row' <<<"$out" | cut -f2-)	$(cut -d' ' -f1 /proc/loadavg)")
    stop_servers
}

if [ -z "${SKIP_SQLITE:-}" ]; then
    for n in "${COUNTS[@]}"; do
        rm -f "$WORK"/tables.db*
        measure sqlite "sqlite://$WORK/tables.db" "$n"
    done
fi

if [ -n "${TABLETALLY_TEST_POSTGRES_URL:-}" ]; then
    for n in "${COUNTS[@]}"; do
        DB="tabletally_tables_$$_$n"
        psql "$TABLETALLY_TEST_POSTGRES_URL" -qc "CREATE DATABASE $DB"
        measure postgres "${TABLETALLY_TEST_POSTGRES_URL%/*}/$DB" "$n"
        psql "$TABLETALLY_TEST_POSTGRES_URL" -qc "DROP DATABASE $DB WITH (FORCE)"
        DB=""
    done
fi

echo
echo "| backend | tables | appends only /s | appends only p50 / p99 | appends only ÷ raw | appends only: state cache missed | PostgreSQL CPU per append ÷ raw insert | cycle appends/s | cycle requests ÷ raw (8 on PostgreSQL) | cycle creations + appends ÷ the same rows by hand | append p50 / p99 | the cycle on own connections: append p50 / p99 (failed) | create p50 / p99 | score p50 / p99 | failed | raw commits/s (1 conn) | raw at 8 | appends ÷ raw (1) | appends ÷ raw (8) | score, 32 conn | /healthz, 32 conn | bare actix, 32 conn | score ÷ bare | server RSS | load |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
for row in "${ROWS[@]}"; do
    IFS=$'\t' read -r backend tables rate ap50 ap99 cp50 cp99 sp50 sp99 failed raw1 raw8 ratio1 ratio8 score healthz hello score_ratio rss only only50 only99 only_ratio cpu_append cpu_raw cpu_ratio cycle floor cycle_ratio only_missed own50 own99 own_failed requests_ratio load <<<"$row"
    echo "| $backend | $tables | $only | $only50 / $only99 ms | ${only_ratio}× | $only_missed % | $cpu_append / $cpu_raw µs = ${cpu_ratio}× | $rate | ${requests_ratio}× | $cycle / $floor /s = ${cycle_ratio}× | $ap50 / $ap99 ms | $own50 / $own99 ms ($own_failed) | $cp50 / $cp99 ms | $sp50 / $sp99 ms | $failed | $raw1 | $raw8 | ${ratio1}× | ${ratio8}× | $score /s | $healthz /s | $hello /s | ${score_ratio}× | $rss MiB | $load |"
done
