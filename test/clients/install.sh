#!/usr/bin/env bash
# Installs the real MCP clients of test/clients/package.json (about 1.6 GB) exactly as locked, unless
# they already are: an install newer than the lockfile is kept, so a rerun costs nothing.
set -euo pipefail
cd "$(dirname "$0")"
if [[ -f node_modules/.package-lock.json && node_modules/.package-lock.json -nt package-lock.json ]]; then
  echo "test/clients: real MCP clients already installed"
  exit 0
fi
npm ci --no-audit --no-fund
