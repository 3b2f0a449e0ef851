/**
 * The places in a person's home folder the sandbox knows by name (paths relative to HOME): where
 * secrets live, which stay hidden even inside a folder a server was granted, and where language
 * toolchains keep what runs, which every server may read so that nvm's node, pipx's Python or a
 * global install run.
 * Lists, not code: docs/decisions/sandbox.md says what is and is not covered.
 */

/** Secret-bearing places on every OS: keys, cloud and registry credentials, shell histories. */
const COMMON_SECRETS = [
  '.ssh',
  '.aws',
  '.gnupg',
  '.config/gh',
  '.config/hub',
  '.netrc',
  '.docker/config.json',
  '.kube',
  '.config/gcloud',
  '.azure',
  '.password-store',
  '.git-credentials',
  '.config/git/credentials',
  '.npmrc',
  '.yarnrc.yml',
  '.pypirc',
  '.gem/credentials',
  '.cargo/credentials',
  '.cargo/credentials.toml',
  '.terraform.d/credentials.tfrc.json',
  '.vault-token',
  '.config/op',
  '.pki',
  '.bash_history',
  '.zsh_history',
  '.local/share/fish/fish_history',
  '.python_history',
  '.node_repl_history',
  '.psql_history',
  '.mysql_history',
  '.mozilla',
  '.thunderbird',
];

/** Linux: keyrings, browser profiles, Flatpak and Snap app data (browsers live there too). */
const LINUX_SECRETS = [
  '.local/share/keyrings',
  '.config/google-chrome',
  '.config/chromium',
  '.config/BraveSoftware',
  '.config/microsoft-edge',
  '.config/vivaldi',
  '.config/opera',
  '.var/app',
  'snap',
];

/** macOS: the keychains, browser profiles, Mail, Messages and Safari. */
const MAC_SECRETS = [
  'Library/Keychains',
  'Library/Cookies',
  'Library/Safari',
  'Library/Mail',
  'Library/Messages',
  'Library/Application Support/Google/Chrome',
  'Library/Application Support/Chromium',
  'Library/Application Support/Firefox',
  'Library/Application Support/BraveSoftware',
  'Library/Application Support/Microsoft Edge',
  'Library/Application Support/com.apple.TCC',
];

/**
 * Where language toolchains keep what runs: node version managers, global installs' prefixes and
 * their bin folders, npx's installed packages, Python user installs, uv's and pipx's tools, Rust, Go,
 * Deno, Bun, Playwright's and Puppeteer's browsers. Readable by every sandboxed server (never
 * writable: one server must not change what another runs). Not the package managers' download
 * caches and logs (`~/.npm/_cacache`, `~/.npm/_logs`, `~/.cache/uv`, `~/.cache/pnpm`, yarn's and
 * bun's caches): they hold private packages and command lines, and runners in the sandbox get a
 * cache of their own (known-servers.ts).
 */
const TOOLCHAINS = [
  '.nvm',
  // npx's installs (code a server was started from by path), not npm's cache and debug logs
  '.npm/_npx',
  '.npm-global',
  '.volta',
  '.fnm',
  '.local/share/fnm',
  '.nodenv',
  '.asdf',
  '.local/share/mise',
  '.bun/bin',
  '.bun/install/global',
  '.deno',
  '.cache/deno',
  '.yarn/bin',
  '.config/yarn/global',
  '.local/share/pnpm',
  '.pyenv',
  '.local/bin',
  '.local/lib',
  '.local/pipx',
  '.local/share/pipx',
  '.local/share/uv',
  '.cargo/bin',
  '.rustup',
  'go',
  '.rbenv',
  '.gem',
  '.sdkman',
  '.linuxbrew',
  '.cache/ms-playwright',
  '.cache/puppeteer',
];

const MAC_TOOLCHAINS = ['Library/pnpm', 'Library/Caches/ms-playwright'];

export function secretPlaces(platform: NodeJS.Platform): readonly string[] {
  return platform === 'darwin' ? [...COMMON_SECRETS, ...MAC_SECRETS] : [...COMMON_SECRETS, ...LINUX_SECRETS];
}

export function toolchainPlaces(platform: NodeJS.Platform): readonly string[] {
  return platform === 'darwin' ? [...TOOLCHAINS, ...MAC_TOOLCHAINS] : TOOLCHAINS;
}

/**
 * Folders outside the home that hold a person's data rather than the system: removable and mounted
 * drives (WSL mounts the Windows user's whole drive at /mnt/c). Hidden unless granted.
 */
export function dataMounts(platform: NodeJS.Platform): readonly string[] {
  return platform === 'darwin' ? ['/Volumes'] : ['/media', '/mnt', '/run/media'];
}

/**
 * Linux's runtime folders: every daemon's socket (D-Bus's system bus, docker.sock, systemd's), and
 * each user's runtime dir with the desktop session's bus, whose Secret Service holds every secret.
 * A read-only bind does not stop connect() on a Unix socket, so they are hidden as a whole. macOS keeps
 * its few sockets in /var/run, and Seatbelt's `(deny network-outbound)` covers connecting to them.
 */
export function runtimeAreas(platform: NodeJS.Platform): readonly string[] {
  return platform === 'linux' ? ['/run', '/var/run'] : [];
}
