#!/usr/bin/env bash
# Installs test/conformance-2026/package.json (the MCP conformance suite with its 2026-07-28 scenarios,
# and what the suite's reference server runs on; about 60 MB) exactly as locked, unless it already is.
set -euo pipefail
cd "$(dirname "$0")"
if [[ -f node_modules/.package-lock.json && node_modules/.package-lock.json -nt package-lock.json ]]; then
  echo "test/conformance-2026: already installed"
  exit 0
fi
npm ci --no-audit --no-fund
