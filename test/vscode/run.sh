#!/usr/bin/env bash
# Opt-in: VS Code's own engine (code-server) reads the mcp.json Switchboard syncs, starts the server
# and lists its tools. Installs code-server into test/vscode (once per lockfile; its postinstall builds
# VS Code's native modules and needs Debian's libkrb5-dev), then runs test/vscode/vscode.test.ts.
set -euo pipefail
cd "$(dirname "$0")"
# The project's Node 24 (code-server wants it) for the install scripts too.
export PATH="$PWD/../../node_modules/.bin:$PATH"
if ! dpkg -s libkrb5-dev >/dev/null 2>&1; then
  if [[ $(id -u) == 0 ]]; then apt-get install -y libkrb5-dev >/dev/null
  elif sudo -n true 2>/dev/null; then sudo apt-get install -y libkrb5-dev >/dev/null
  else echo "code-server's install needs libkrb5-dev: sudo apt-get install -y libkrb5-dev" >&2; exit 1
  fi
fi
if [[ ! -f node_modules/.package-lock.json || package-lock.json -nt node_modules/.package-lock.json ]]; then
  npm ci --no-audit --no-fund
fi
cd ../..
SWITCHBOARD_REQUIRE_VSCODE=1 bash test/run.sh test/vscode
