import { posix } from 'node:path';

/**
 * Start at login. macOS and Windows use Electron's login items; Linux has no such API, so the
 * freedesktop autostart entry is written instead: $XDG_CONFIG_HOME/autostart/switchboard.desktop.
 */
export function linuxAutostartFile(env: NodeJS.ProcessEnv): string {
  const config = env.XDG_CONFIG_HOME || posix.join(env.HOME ?? '', '.config');
  return posix.join(config, 'autostart', 'switchboard.desktop');
}

export function linuxAutostartEntry(executable: string): string {
  // Exec quoting per the Desktop Entry spec: double quotes, with \ " ` $ escaped.
  const quoted = `"${executable.replace(/(["`$\\])/g, '\\$1')}"`;
  return [
    '[Desktop Entry]',
    'Type=Application',
    'Name=Switchboard',
    'Comment=One MCP setup, every editor',
    `Exec=${quoted} --hidden`,
    'X-GNOME-Autostart-enabled=true',
    'Terminal=false',
    '',
  ].join('\n');
}
