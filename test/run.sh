#!/usr/bin/env bash
# Runs every test (or the vitest filters given) inside a private D-Bus session with a real, unlocked
# gnome-keyring and a throwaway XDG_DATA_HOME, so keychain tests use a real Secret Service and leave
# nothing behind. Called by `npm test`; .ci/run installs the Debian packages it needs.
set -euo pipefail
cd "$(dirname "$0")/.."

missing=()
for tool in dbus-run-session gnome-keyring-daemon; do
  command -v "$tool" >/dev/null 2>&1 || missing+=("$tool")
done
if ((${#missing[@]})); then
  echo "test/run.sh: missing ${missing[*]}." >&2
  echo "Install them with: sudo apt-get install -y dbus gnome-keyring   (or run: bash .ci/run)" >&2
  exit 1
fi

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

if [[ $# -eq 0 ]]; then
  npx tsc -p tsconfig.json
  npx eslint .
  npx prettier --check . >/dev/null || { npx prettier --check .; exit 1; }
fi
exec npx vitest run "$@"
