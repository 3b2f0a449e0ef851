import { fileURLToPath } from 'node:url';

/**
 * An MCP bundle the OS hands the desktop app (double-click, "Open with", a drop on its icon): a path
 * ending in `.mcpb` (or the older `.dxt`) among a launch's arguments (Windows, Linux), or macOS's
 * `open-file`. Anything else is not one.
 */
export function bundleFileFromArgv(argv: readonly string[]): string | undefined {
  for (const arg of argv.slice(1)) {
    const path = localPath(arg);
    if (path !== undefined && isBundleFile(path)) return path;
  }
  return undefined;
}

/**
 * A launch argument as a local path: itself, or the path of a `file://` URL, which a Linux file manager
 * may pass for the desktop entry's `%U` (the Debian package's `Exec=switchboard %U`); undefined for a
 * URL of anything else (a file on another host, a `switchboard://` link).
 */
function localPath(arg: string): string | undefined {
  // A scheme of two letters or more (never a Windows drive's "C:") that is not file: is no local file.
  if (/^[a-z][a-z0-9+.-]+:\/\//i.test(arg) && !/^file:/i.test(arg)) return undefined;
  if (!/^file:/i.test(arg)) return arg;
  try {
    return fileURLToPath(arg);
  } catch {
    return undefined;
  }
}

export function isBundleFile(path: string): boolean {
  return /\.(mcpb|dxt)$/i.test(path) && !path.startsWith('-');
}

/**
 * What to do with an opened bundle once it is unpacked and checked: with nothing to ask (no
 * settings, or only ones with defaults) its server is added and waits for approval; otherwise the
 * person fills in its settings in the window (Add a server → MCP bundle), since a notification
 * cannot ask for them.
 */
export function bundleOpenPlan(
  fields: Record<string, { required: boolean; default: unknown }>,
): 'add' | 'ask' {
  return Object.values(fields).some((f) => f.required && f.default === undefined) ? 'ask' : 'add';
}
