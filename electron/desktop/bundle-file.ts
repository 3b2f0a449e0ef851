/**
 * An MCP bundle the OS hands the desktop app (double-click, "Open with", a drop on its icon): a path
 * ending in `.mcpb` (or the older `.dxt`) among a launch's arguments (Windows, Linux), or macOS's
 * `open-file`. Anything else is not one.
 */
export function bundleFileFromArgv(argv: readonly string[]): string | undefined {
  return argv.slice(1).find(isBundleFile);
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
