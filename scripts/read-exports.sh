#!/usr/bin/env bash
# Reads our BoardGameGeek and BG Stats exports back with other apps' readers (scripts/read_exports.py),
# in a venv of the pinned readers under ${TMPDIR:-/tmp}/tabletally-readers, made when missing.
#
#   scripts/read-exports.sh [--bgg PLAYS.xml] [--bgstats BGStatsExport.json]
#
# boardgamegeek2 1.0.1 (imports as `boardgamegeek`) builds a requests_cache.core session when
# imported, and requests-cache 0.6 dropped `core`: it is pinned below 0.6.
set -euo pipefail

VENV="${TMPDIR:-/tmp}/tabletally-readers"
# One at a time: the tests of both databases run this at once, and one must not find the other's
# venv half made (a python, no pip yet).
exec 9>"$VENV.lock"
flock 9
if [ ! -x "$VENV/bin/pip" ]; then
    python3 -m venv "$VENV"
fi
"$VENV/bin/pip" install --quiet --disable-pip-version-check \
    boardgamegeek2==1.0.1 requests-cache==0.5.2 requests==2.34.2
flock -u 9
exec "$VENV/bin/python" "$(dirname "$0")/read_exports.py" "$@"
