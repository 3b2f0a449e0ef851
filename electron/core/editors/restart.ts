import type { EditorRestartResult } from '../../../shared/ui-api.ts';
import type { AppControl } from '../desktop-apps/index.ts';
import { UserError } from '../errors.ts';
import { desktopAppOf } from './processes.ts';
import type { EditorAdapter } from './types.ts';

/** The command that restarts an editor (named in sync's notice and the CLI's help). */
export const restartCommand = (editor: string) => `switchboard editors restart ${editor}`;

/**
 * Quits and reopens an editor that reads its file only at start (Claude Desktop), where this OS
 * allows (desktop-apps/). Not running: nothing is started; it reads the file at its next start.
 */
export async function restartEditor(
  adapter: EditorAdapter,
  control: AppControl | undefined,
): Promise<EditorRestartResult> {
  const app = desktopAppOf(adapter);
  if (!app || !adapter.restartNotice)
    throw new UserError(`${adapter.label} needs no restart: it reads its settings when they change`);
  if (!control)
    throw new UserError(`Switchboard cannot restart ${adapter.label} on this system`, {
      hint: 'quit it from its menu and open it again',
    });
  const result = await control.restart(app);
  return result.outcome === 'not-running'
    ? {
        ok: true,
        editor: adapter.id,
        outcome: 'not-running',
        pids: [],
        message: `${adapter.label} is not running: it reads its settings when it next starts.`,
      }
    : {
        ok: true,
        editor: adapter.id,
        outcome: 'restarted',
        pids: result.pids,
        message: `${adapter.label} restarted: it reads its new settings as it starts.`,
      };
}
