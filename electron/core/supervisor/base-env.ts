/**
 * What a local server gets of the environment Switchboard itself was started with: a short named
 * list, never the whole of it. The shell that starts `serve` holds GITHUB_TOKEN, AWS_… keys, the
 * desktop bus address and whatever else the person exported; a server would read all of them. The
 * list is what programs need to find their tools and the person's settings (the MCP SDK's own stdio
 * default, getDefaultEnvironment(), plus locale, time zone and temp folder, and on Windows the folders
 * and shell programs installers and runtimes look up). Anything else is passed on purpose, by name, in
 * the entry's `env` (`"GH": "${env:GITHUB_TOKEN}"`), which the approval shows. Sandboxed or not:
 * the sandbox adds its own (proxy, TMPDIR) on top, and unsandboxed servers get the same short list.
 */

const POSIX = ['PATH', 'HOME', 'USER', 'LOGNAME', 'SHELL', 'TERM', 'LANG', 'TZ', 'TMPDIR'];
/** LC_ALL, LC_CTYPE, …: the locale, which programs read to print and sort text. */
const POSIX_PREFIX = 'LC_';

const WINDOWS = [
  'PATH',
  'PATHEXT',
  'SYSTEMROOT',
  'SYSTEMDRIVE',
  'WINDIR',
  'COMSPEC',
  'APPDATA',
  'LOCALAPPDATA',
  'USERPROFILE',
  'HOMEDRIVE',
  'HOMEPATH',
  'USERNAME',
  'PROGRAMDATA',
  'PROGRAMFILES',
  'PROGRAMFILES(X86)',
  'PROGRAMW6432',
  'COMMONPROGRAMFILES',
  'COMMONPROGRAMFILES(X86)',
  'PROCESSOR_ARCHITECTURE',
  'TEMP',
  'TMP',
];

/** Whether a variable of Switchboard's environment is one every server gets. */
function inherits(name: string, platform: NodeJS.Platform): boolean {
  if (platform === 'win32') return WINDOWS.includes(name.toUpperCase());
  return POSIX.includes(name) || name.startsWith(POSIX_PREFIX);
}

/**
 * The part of `env` every server gets (Windows names upper-cased: there they are one name whatever
 * the case, and PATH must not arrive twice as Path and PATH). A value that is a shell function
 * (`() { …`) is left out, as the SDK does.
 */
export function baseEnvironment(env: NodeJS.ProcessEnv, platform: NodeJS.Platform): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined || value.startsWith('()') || !inherits(name, platform)) continue;
    out[platform === 'win32' ? name.toUpperCase() : name] = value;
  }
  return out;
}

/** The approval's line: the names (never the values) a server gets from the person's environment. */
export function describeBaseEnvironment(env: NodeJS.ProcessEnv, platform: NodeJS.Platform): string {
  const names = Object.keys(baseEnvironment(env, platform)).sort();
  return names.length
    ? `gets from your environment: ${names.join(', ')}; nothing else of it unless its env names one (\${env:NAME})`
    : 'gets nothing from your environment unless its env names a variable (${env:NAME})';
}
