import { SettingsSchema, UiRoutes } from '../../shared/ui-api.ts';
import type { IpcRequest, IpcResponse } from '../../shared/ipc.ts';

/**
 * The desktop app answers the UI's requests by relaying them to its own control API; these shape
 * the answers. The control API is the core's and knows nothing of the desktop, so its settings say
 * `startAtLogin: null` ("does not apply"); the shell fills in the real value.
 */
export function withDesktopSettings(
  request: Pick<IpcRequest, 'method' | 'path'>,
  response: IpcResponse,
  startAtLogin: boolean,
): IpcResponse {
  if (request.path !== UiRoutes.settings || response.status !== 200) return response;
  const settings = SettingsSchema.safeParse(response.body);
  if (!settings.success) return response;
  return { status: response.status, body: { ...settings.data, startAtLogin } };
}

/** A control API answer as the UI's transport expects it: JSON, or the text as `{ error }`. */
export function toIpcResponse(status: number, text: string): IpcResponse {
  if (!text) return { status, body: null };
  try {
    return { status, body: JSON.parse(text) as unknown };
  } catch {
    return { status, body: { error: text.trim().slice(0, 500) } };
  }
}

/** A request the IPC schema refused, answered like the control API answers a bad request. */
export function refusedIpcRequest(message: string): IpcResponse {
  return { status: 400, body: { error: `Switchboard refused this request: ${message}` } };
}
