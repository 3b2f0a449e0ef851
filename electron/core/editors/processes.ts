import { appControlFor, type AppControl, type DesktopApp } from '../desktop-apps/index.ts';
import type { EditorAdapter } from './types.ts';

/** The editor as a desktop app Switchboard can look for (and restart), if it is one. */
export function desktopAppOf(adapter: EditorAdapter): DesktopApp | undefined {
  if (!adapter.processNames) return undefined;
  return {
    label: adapter.label,
    processNames: adapter.processNames,
    macAppName: adapter.macAppName ?? adapter.label,
  };
}

/**
 * Is the editor running? For the "restart Claude Desktop" notice. The process inspection itself is
 * electron/core/desktop-apps (by exact program name, this user's processes only). undefined when it
 * cannot be told.
 */
export async function isEditorRunning(
  adapter: EditorAdapter,
  platform: NodeJS.Platform = process.platform,
  control: AppControl | undefined = appControlFor(platform),
): Promise<boolean | undefined> {
  const app = desktopAppOf(adapter);
  if (!app || !control) return undefined;
  const found = await control.list(app).catch(() => undefined);
  return found === undefined ? undefined : found.length > 0;
}
