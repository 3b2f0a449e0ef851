#!/usr/bin/env bash
# Installs the Debian packages the tests need when they are missing: a private D-Bus session with a
# real gnome-keyring (keychain tests), Chromium (the UI's end-to-end tests; Playwright cannot
# download browsers here), bubblewrap and socat (servers' sandbox). Used by test/run.sh and
# .ci/run. Installs by itself as root or with passwordless sudo; otherwise prints the one command.
set -euo pipefail

need=()
command -v dbus-run-session >/dev/null 2>&1 || need+=(dbus)
command -v gnome-keyring-daemon >/dev/null 2>&1 || need+=(gnome-keyring)
command -v busctl >/dev/null 2>&1 || need+=(systemd)
command -v ps >/dev/null 2>&1 || need+=(procps)
[[ -x /usr/bin/chromium ]] || need+=(chromium)
# Servers' sandbox (test/integration/sandbox): bubblewrap, and socat to relay its filtered network.
command -v bwrap >/dev/null 2>&1 || need+=(bubblewrap)
command -v socat >/dev/null 2>&1 || need+=(socat)
# test/integration/sandbox/node-network.test.ts: openssl (a test certificate), ip (below), and
# aiohttp, which a sandboxed Python server reaches the network with only through the sandbox's
# sitecustomize.
command -v openssl >/dev/null 2>&1 || need+=(openssl)
/usr/bin/python3 -c 'import aiohttp' >/dev/null 2>&1 || need+=(python3-aiohttp)
# update-mime-database: the Debian package's .mcpb file type (test/unit/desktop/forge-config.test.ts)
command -v update-mime-database >/dev/null 2>&1 || need+=(shared-mime-info)
# setpriv, to run the sandbox as an ordinary user when the tests run as root
command -v setpriv >/dev/null 2>&1 || need+=(util-linux)
# ip, to give a private network namespace an address of "this computer" that is not loopback
# (test/integration/sandbox/proxy-gate.test.ts, node-network.test.ts)
command -v ip >/dev/null 2>&1 || need+=(iproute2)
((${#need[@]})) || exit 0

if ! command -v apt-get >/dev/null 2>&1; then
  echo "The tests need: ${need[*]} (Debian package names); install them with your package manager." >&2
  exit 1
fi
sudo=()
if [[ $(id -u) -ne 0 ]]; then
  if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
    sudo=(sudo)
  else
    echo "The tests need these Debian packages: ${need[*]}" >&2
    echo "Install them once with: sudo apt-get install -y --no-install-recommends ${need[*]}" >&2
    exit 1
  fi
fi
echo "Installing the Debian packages the tests need: ${need[*]}"
"${sudo[@]}" apt-get update -qq
DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
