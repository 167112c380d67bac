#!/usr/bin/env bash
# The failover figures of RELIABILITY.md and BENCHMARKS.md: the failover test (tests/e2e/failover.rs)
# run for ten failovers back and forth under eight tables, then the synchronous standby's cost on
# appends (eight tables in sync, then on the primary alone). Prints each failover's resume time,
# the appends acknowledged (all checked present exactly once) and the cost as a ratio.
#
#   scripts/failover-bench.sh [failovers]     (default 10; needs pg_autoctl)
set -euo pipefail
cd "$(dirname "$0")/.."
export TABLETALLY_FAILOVERS="${1:-10}"
export TABLETALLY_FAILOVER_COST=1
log="${TMPDIR:-/tmp}/tabletally-failover-bench.log"
cargo test --locked -p tabletally-tests --test e2e failover -- --nocapture >"$log" 2>&1 || status=$?
grep -E '^(failover|synchronous|[0-9]+ failovers)|test result|panicked' "$log"
echo "(whole output: $log)"
exit "${status:-0}"
