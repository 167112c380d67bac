#!/usr/bin/env bash
# What a held game costs (issue 55). For each of the four games, GAMES games brought to a
# mid-game point (tests/load/held.rs says which) on a fresh server and database twice: with the
# state cache raised so it holds them all, and with no cache; the RSS a held game costs is the
# difference of the two growths, and the cache's own estimate is set against it. Then the
# Friday-evening loop with the default settings: LOOP_GAMES Mint Condition games in progress, 100
# tables returning to each every 5 s for LOOP_SECONDS, the cache's hit rate and the server's RSS.
# SQLite, and PostgreSQL too when TABLETALLY_TEST_POSTGRES_URL is set. Loopback only.
#
#   scripts/held.sh [GAMES] [LOOP_GAMES] [LOOP_SECONDS]     # default 10000, 10000, 60
#
# The RSS difference is noisy by a few MiB whatever GAMES is: over 2,000 games that is more than
# a kilobyte a game, over 10,000 a fifth of it.
#
# Builds nothing: it runs the release binaries in TABLETALLY_BIN (default target/release; build
# them with `cargo build --release -p tabletally-api --bin tabletally -p tabletally-tests --bin
# tabletally-load`). GAMES_ONLY=mint-condition measures one game; NO_LOOP=1 leaves the loop out;
# GAMES_ONLY=' ' (a space) runs the loop alone.
set -euo pipefail
cd "$(dirname "$0")/.."

GAMES="${1:-10000}"
LOOP_GAMES="${2:-10000}"
LOOP_SECONDS="${3:-60}"
export TABLETALLY_BIN="${TABLETALLY_BIN:-${CARGO_TARGET_DIR:-target}/release}"
source scripts/bench-common.sh
KINDS=(${GAMES_ONLY:-mint-condition mind-up mint-julep vintage})


HELD=()
LOOPS=()

# A fresh database on backend $1 for run $2: prints its URL (PostgreSQL: sets DB).
fresh_database() {
    if [ "$1" = sqlite ]; then
        rm -f "$WORK"/held.db*
        echo "sqlite://$WORK/held.db"
    else
        psql "$TABLETALLY_TEST_POSTGRES_URL" -qc "CREATE DATABASE $2"
        echo "${TABLETALLY_TEST_POSTGRES_URL%/*}/$2"
    fi
}

drop_database() {
    [ "$1" = sqlite ] || psql "$TABLETALLY_TEST_POSTGRES_URL" -qc "DROP DATABASE $2 WITH (FORCE)"
}

# `held` on backend $1 for game $2 with the cache's environment $3 (run named $4): sets ROW to the
# tool's row.
held_run() {
    local name="tabletally_held_$$"
    local url
    url=$(fresh_database "$1" "$name")
    [ "$1" = sqlite ] || DB="$name"
    # A log of its own: a log of the same name may still show the last server's address.
    start_server "$url" "$3" "$1-$2-$4"
    local token
    token=$(new_club "$BASE" token)
    local out
    out=$("$BIN/tabletally-load" held "$BASE" "$token" "$2" "$GAMES" "$SERVER")
    grep -v '^row' <<<"$out"
    stop_servers
    drop_database "$1" "$name"
    DB=""
    ROW=$(grep '^row' <<<"$out" | cut -f2-)
}

measure() {
    local backend=$1
    for kind in "${KINDS[@]}"; do
        echo "== $backend, $kind, $GAMES games, cache raised (load average: $(cut -d' ' -f1-3 /proc/loadavg))"
        held_run "$backend" "$kind" "TABLETALLY_CACHE_GAMES=1000000 TABLETALLY_CACHE_MB=4096" cached
        local on="$ROW"
        echo "== $backend, $kind, $GAMES games, no cache"
        held_run "$backend" "$kind" "TABLETALLY_CACHE_GAMES=0" uncached
        HELD+=("$backend	$on	$(cut -f6 <<<"$ROW")")
    done
    if [ -z "${NO_LOOP:-}" ]; then
        local name="tabletally_held_loop_$$"
        local url
        url=$(fresh_database "$backend" "$name")
        [ "$backend" = sqlite ] || DB="$name"
        start_server "$url" "" "$backend-loop"
        local token
        token=$(new_club "$BASE" token)
        echo "== $backend, the loop: $LOOP_GAMES games, $LOOP_SECONDS s, default cache"
        local out
        out=$("$BIN/tabletally-load" held-loop "$BASE" "$token" "$LOOP_GAMES" "$LOOP_SECONDS" "$SERVER")
        grep -v '^row' <<<"$out"
        LOOPS+=("$backend	$(grep '^row' <<<"$out" | cut -f2-)")
        stop_servers
        drop_database "$backend" "$name"
        DB=""
    fi
}

[ -n "${SKIP_SQLITE:-}" ] || measure sqlite
[ -z "${TABLETALLY_TEST_POSTGRES_URL:-}" ] || measure postgres

echo
echo "| backend | game | games | version | RSS growth a game, cache raised | without cache | a held game | the cache's estimate a game | estimate ÷ held |"
echo "|---|---|---|---|---|---|---|---|---|"
for row in "${HELD[@]}"; do
    IFS=$'\t' read -r backend game games version _ _ on held estimate _ off <<<"$row"
    python3 - "$backend" "$game" "$games" "$version" "$on" "$off" "$estimate" <<'EOF'
import sys
backend, game, games, version, on, off, estimate = sys.argv[1:]
net = float(on) - float(off)
print(f"| {backend} | {game} | {games} | {version} | {float(on):.2f} KiB | {float(off):.2f} KiB | "
      f"{net:.2f} KiB ({net * 1000 / 1024:.1f} MiB per 1,000) | {float(estimate):.2f} KiB | {float(estimate) / max(net, 0.01):.2f} |")
EOF
done
if [ ${#LOOPS[@]} -gt 0 ]; then
    echo
    echo "| backend | games | appends | appends/s | p50 / p99 | hits | misses | hit rate | games held | RSS after | RSS at most | the cache's estimate | failed |"
    echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|"
    for row in "${LOOPS[@]}"; do
        IFS=$'\t' read -r backend games appends rate p50 p99 hits misses rate_hit held rss peak estimate failed <<<"$row"
        echo "| $backend | $games | $appends | $rate | $p50 / $p99 ms | $hits | $misses | $rate_hit % | $held | $rss MiB | $peak MiB | $estimate MiB | $failed |"
    done
fi
