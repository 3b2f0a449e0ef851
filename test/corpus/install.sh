#!/usr/bin/env bash
# Installs the server corpus of test/corpus/npm/package.json (popular stdio MCP servers, about 1.5 GB)
# exactly as locked, unless it already is: an install newer than the lockfile is kept, so a rerun
# costs nothing. Fails when the npm registry cannot be reached; the corpus test then skips (unless
# SWITCHBOARD_REQUIRE_CORPUS=1).
set -euo pipefail
# The package is in npm/, apart from the test: its own copy of the MCP SDK must not be the one the
# test imports.
cd "$(dirname "$0")/npm"
if [[ -f node_modules/.package-lock.json && node_modules/.package-lock.json -nt package-lock.json ]]; then
  echo "test/corpus: server corpus already installed"
  exit 0
fi
npm ci --no-audit --no-fund
