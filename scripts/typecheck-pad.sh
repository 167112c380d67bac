#!/usr/bin/env bash
# Type-checks the score pad (web/) against the API: TypeScript types generated from
# openapi/openapi.json (openapi-typescript), then `tsc --checkJs` over the page's JavaScript
# (its JSDoc names those types). A change to the API that breaks the page fails here.
# Needs Node.js and npm; the versions are pinned in scripts/typecheck-pad/package-lock.json.
set -euo pipefail
cd "$(dirname "$0")/.."

tools=scripts/typecheck-pad
npm ci --prefix "$tools" --no-audit --no-fund --loglevel=error
mkdir -p web/types
"$tools/node_modules/.bin/openapi-typescript" openapi/openapi.json -o web/types/api.d.ts --silent
"$tools/node_modules/.bin/tsc" -p web/jsconfig.json
echo "score pad: types match openapi/openapi.json"
