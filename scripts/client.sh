#!/usr/bin/env bash
# A generated client works: generates a Python client from openapi/openapi.json with
# openapi-python-client (pinned) and plays one whole game of each game with it
# (scripts/client_game.py: the document's example scenarios, through the client's typed calls).
#
#   scripts/client.sh          # `.ci/run` runs it after the tests; about 10 s once installed
set -euo pipefail
cd "$(dirname "$0")/.."

VENV=.venv-client
GENERATOR_VERSION=0.29.1

if ! "$VENV/bin/openapi-python-client" --version 2>/dev/null | grep -q "$GENERATOR_VERSION"; then
    python3 -m venv "$VENV"
    # The generator, and what the generated code imports.
    "$VENV/bin/pip" install --quiet "openapi-python-client==$GENERATOR_VERSION" \
        "httpx==0.28.1" "attrs==26.1.0" "python-dateutil==4.0.0"
fi

cargo build --quiet -p tabletally-api --bin tabletally

WORK=$(mktemp -d)
TABLETALLY_ADDR=127.0.0.1:0 DATABASE_URL="sqlite://$WORK/client.db" \
    RUST_LOG=warn,tabletally_api::startup=info NO_COLOR=1 "${CARGO_TARGET_DIR:-target}/debug/tabletally" >"$WORK/server.log" 2>&1 &
SERVER=$!
trap 'kill $SERVER 2>/dev/null || true; rm -rf "$WORK"' EXIT

ADDR=""
for _ in $(seq 1 100); do
    ADDR=$(sed -n 's/.*listening on \(http:\/\/[0-9.:]*\).*/\1/p' "$WORK/server.log" | head -1)
    [ -n "$ADDR" ] && break
    sleep 0.1
done
[ -n "$ADDR" ] || { echo "the server did not start:"; cat "$WORK/server.log"; exit 1; }

# A warning means part of the document could not be turned into code: fail on it. The one
# expected exception: the generator only speaks JSON, so the export/import endpoints whose bodies
# are NDJSON or XML files (a client streams those as bytes) are left out of the generated code.
(cd "$WORK" && "$OLDPWD/$VENV/bin/openapi-python-client" generate --path "$OLDPWD/openapi/openapi.json" \
    --meta none --output-path tabletally_client >generate.log 2>&1) \
    || { cat "$WORK/generate.log"; exit 1; }
UNEXPECTED=$(awk '
    /^WARNING/ { warning = $0; next }
    warning != "" && NF > 0 {
        if ($0 !~ /[Uu]nsupported content.type application\/(x-ndjson|xml)/) print warning ": " $0
        warning = ""
    }' "$WORK/generate.log")
if [ -n "$UNEXPECTED" ]; then
    echo "the client generator could not use all of openapi/openapi.json:"; echo "$UNEXPECTED"
    cat "$WORK/generate.log"; exit 1
fi

PYTHONPATH="$WORK" "$VENV/bin/python" scripts/client_game.py "$ADDR" openapi/openapi.json
