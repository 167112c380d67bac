#!/usr/bin/env bash
# Live-stream figures for BENCHMARKS.md: 50 tables appending while 500 streams follow them, on
# SQLite and, when TABLETALLY_TEST_POSTGRES_URL is set, on PostgreSQL. Loopback only; bounded.
#
#   scripts/streams.sh [GAMES] [STREAMS] [APPENDS] [GAP_MS]     # default 50 500 24 0
#
# GAP_MS: each table waits that long after each answer before its next append (paced, as real
# tables are); 0, tables append back to back and saturate the CPUs. RUNS (default 5) runs on
# each database, each on a fresh server; within a run, rounds with the streams open and closed
# alternate. The targets are on the median of the runs: the server's CPU per delivered frame
# within 2× the kernel's floor of the same run, and the append p99 with the streams open no more
# than 20 % above the p99 without.
set -euo pipefail
cd "$(dirname "$0")/.."

GAMES="${1:-50}"
STREAMS="${2:-500}"
APPENDS="${3:-24}"
GAP_MS="${4:-0}"
RUNS="${RUNS:-5}"
source scripts/bench-common.sh

measure() {
    name=$1 url=$2
    out="$WORK/runs-$name.txt"
    : > "$out"
    for run in $(seq 1 "$RUNS"); do
        # A club's and an address's limits above the benchmark's streams (all from loopback),
        # twice over: a round's streams hung up on stay with the server until a frame finds
        # them closed. The per-server default (10000) holds them.
        limit=$((2 * STREAMS + 10))
        start_server "$url" "TABLETALLY_STREAMS_PER_CLUB=$limit TABLETALLY_STREAMS_PER_ADDRESS=$limit TABLETALLY_REQUESTS_PER_ADDRESS=1000000" "$name-$run"
        token=$(new_club "$BASE" token)
        echo "== $name, run $run of $RUNS"
        "$BIN/tabletally-load" streams "$BASE" "$token" "$GAMES" "$STREAMS" "$APPENDS" "$SERVER" "$GAP_MS" \
            | tee -a "$out"
        stop_servers
    done
    # The medians the targets are on.
    python3 - "$out" "$name" <<'EOF'
import re, statistics, sys
text = open(sys.argv[1]).read()
frames = [float(x) for x in re.findall(r"→ ([0-9.]+)× \(target ≤ 2×\)", text)]
p99 = [float(x) for x in re.findall(r"\(([-+0-9.]+) %; target ≤ \+20 %\)", text)]
name = sys.argv[2]
if frames:
    print(f"== {name}: CPU per delivered frame ÷ the floor, median of {len(frames)} runs: "
          f"{statistics.median(frames):.2f}× (runs: {', '.join(f'{x:.2f}' for x in frames)}; target ≤ 2×)")
if p99:
    print(f"== {name}: append p99 with the streams open, median of {len(p99)} runs: "
          f"{statistics.median(p99):+.1f} % (runs: {', '.join(f'{x:+.1f}' for x in p99)}; target ≤ +20 %)")
EOF
}

[ -n "${SKIP_SQLITE:-}" ] || measure sqlite "sqlite://$WORK/streams.db"

if [ -n "${TABLETALLY_TEST_POSTGRES_URL:-}" ]; then
    DB="tabletally_streams_$$"
    psql "$TABLETALLY_TEST_POSTGRES_URL" -qc "CREATE DATABASE $DB"
    measure postgres "${TABLETALLY_TEST_POSTGRES_URL%/*}/$DB"
fi
