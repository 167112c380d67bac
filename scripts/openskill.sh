#!/usr/bin/env bash
# Rates games with OpenSkill's BradleyTerryFull (scripts/openskill_ratings.py), the independent
# implementation the server's ratings are checked against, in a venv of the pinned package under
# ${TMPDIR:-/tmp}/tabletally-openskill, made when missing.
#
#   scripts/openskill.sh < games.json     # [[[player, rank], ...], ...] in play order
#
# openskill is pinned: 6.2.0's tied players keep their own updates, as the server's do.
set -euo pipefail

VENV="${TMPDIR:-/tmp}/tabletally-openskill"
# One at a time: the tests of both databases run this at once, and one must not find the other's
# venv half made.
exec 9>"$VENV.lock"
flock 9
if [ ! -x "$VENV/bin/pip" ]; then
    python3 -m venv "$VENV"
fi
"$VENV/bin/pip" install --quiet --disable-pip-version-check openskill==6.2.0
flock -u 9
exec "$VENV/bin/python" "$(dirname "$0")/openskill_ratings.py"
