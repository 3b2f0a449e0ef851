#!/usr/bin/env bash
# Installs the real MCP clients of test/clients/package.json (about 2.6 GB) exactly as locked, unless
# they already are: an install newer than the lockfile is kept, so a rerun costs nothing.
set -euo pipefail
cd "$(dirname "$0")"
if [[ -f node_modules/.package-lock.json && node_modules/.package-lock.json -nt package-lock.json ]]; then
  echo "test/clients: real MCP clients already installed"
  exit 0
fi
# Not `npm ci`: npm 11 refuses this lockfile ("Missing: @teddyzhu/clipboard-darwin-arm64@ from lock
# file") because some clients list other platforms' optional packages that the lockfile
# leaves out. `npm install --no-save` installs the locked versions and writes nothing.
npm install --no-audit --no-fund --no-save
