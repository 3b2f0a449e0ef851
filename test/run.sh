#!/usr/bin/env bash
# Runs every test (or the vitest filters given) inside a private D-Bus session with a real, unlocked
# gnome-keyring and a throwaway XDG_DATA_HOME, so keychain tests use a real Secret Service and leave
# nothing behind. Called by `npm test`; test/setup-debian.sh installs the Debian packages it needs.
set -euo pipefail
cd "$(dirname "$0")/.."
# The project's Node 24 (and tools) first, also when this script is run directly rather than by npm.
export PATH="$PWD/node_modules/.bin:$PATH"

# dbus, gnome-keyring, Chromium: installed when missing (as root or with passwordless sudo), else
# the command to install them is printed.
bash test/setup-debian.sh

if [[ "${SWITCHBOARD_IN_TEST_SESSION:-}" != 1 ]]; then
  scratch=$(mktemp -d -t switchboard-test-XXXXXX)
  trap 'rm -rf "$scratch"' EXIT
  export SWITCHBOARD_IN_TEST_SESSION=1 XDG_DATA_HOME="$scratch/data" ELECTRON_SKIP_BINARY_DOWNLOAD=1
  mkdir -p "$XDG_DATA_HOME"
  # dbus-run-session complains that it cannot raise its fd limit when not root-capable; harmless.
  dbus-run-session -- bash "$0" "$@" 2> >(grep -v 'Failed to set fd limit' >&2)
  exit $?
fi

# A non-empty password makes gnome-keyring create and unlock the default "login" collection.
eval "$(printf 'switchboard-test' | gnome-keyring-daemon --unlock --components=secrets)"
export GNOME_KEYRING_CONTROL
for _ in $(seq 50); do
  busctl --user status org.freedesktop.secrets >/dev/null 2>&1 && break
  dbus-send --session --print-reply --dest=org.freedesktop.DBus / org.freedesktop.DBus.ListNames 2>/dev/null |
    grep -q org.freedesktop.secrets && break
  sleep 0.1
done

# The e2e tests (test/e2e: Playwright in Debian's Chromium against `switchboard serve`) drive the
# production build of the UI: electron/headless/ui-build.ts builds it when missing or older than its
# sources (the same check `npm start` makes).
build_ui_if_stale() {
  node electron/headless/ui-build.ts
}

# Built before any test: tests start `switchboard serve`, which builds a missing UI itself (for
# `npx switchboard serve` from a fresh clone), and many of them at once must not all build it.
build_ui_if_stale

if [[ $# -eq 0 ]]; then
  npx tsc -p tsconfig.json
  npx tsc -p renderer
  npx eslint .
  npx prettier --check . >/dev/null || { npx prettier --check .; exit 1; }
  # Import rules (.dependency-cruiser.mjs; docs/development.md, Layers): no cycle, no upward import.
  # Violations listed in .dependency-cruiser-known-violations.json are being removed elsewhere.
  npm run -s check:imports
  # Size rules (build/architecture/sizes.ts; docs/development.md, Sizes): no file or class past its limit.
  npm run -s check:sizes
  # The uses rule (build/architecture/uses.ts; docs/development.md, Uses): nothing takes more than it reads.
  npm run -s check:uses
  npx vitest run --exclude 'test/e2e/**'
  # The UI end to end, on its own and one file at a time, so nothing competes for the CPU while it
  # measures paint and frame times.
  exec npx vitest run --no-file-parallelism test/e2e
fi
if [[ "$*" == *e2e* ]]; then
  exec npx vitest run --no-file-parallelism "$@"
fi
exec npx vitest run "$@"
