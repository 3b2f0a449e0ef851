#!/usr/bin/env bash
# Installs the Nodes of test/node-versions/package.json (Linux x64 binaries, about 120 MB each) exactly
# as locked, unless they already are.
set -euo pipefail
cd "$(dirname "$0")"
if [[ "$(uname -sm)" != "Linux x86_64" ]]; then
  echo "test/node-versions: only Linux x86_64 binaries are pinned; skipped"
  exit 0
fi
if [[ -f node_modules/.package-lock.json && node_modules/.package-lock.json -nt package-lock.json ]]; then
  echo "test/node-versions: Nodes already installed"
  exit 0
fi
npm ci --no-audit --no-fund
