import { z } from 'zod';

/**
 * The desktop app's IPC between the preload (contextBridge) and the main process. The renderer's IPC
 * implementation of UiApi sends the same control-API requests the headless UI sends over HTTP; the
 * main process validates every message with these schemas before acting on it.
 */
export { IPC_EVENT, IPC_REQUEST, IPC_SHELL } from './ipc-channels.ts';

export const IpcRequestSchema = z
  .object({
    method: z.enum(['GET', 'POST', 'PUT', 'DELETE']),
    path: z
      .string()
      .regex(/^\/api\/[A-Za-z0-9/_.%~-]*(\?[A-Za-z0-9=&_.%~-]*)?$/, 'not a control API path')
      .max(2048),
    body: z.unknown().optional(),
  })
  .strict();
export type IpcRequest = z.infer<typeof IpcRequestSchema>;

export const IpcResponseSchema = z.object({ status: z.number().int(), body: z.unknown() });
export type IpcResponse = z.infer<typeof IpcResponseSchema>;

/** Desktop-only actions the views may ask the shell for. */
export const IpcShellRequestSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('set-start-at-login'), enabled: z.boolean() }).strict(),
  z.object({ type: z.literal('open-external'), url: z.url({ protocol: /^https?$/ }) }).strict(),
]);
export type IpcShellRequest = z.infer<typeof IpcShellRequestSchema>;

/** What the preload exposes as `window.switchboard`. */
export interface SwitchboardBridge {
  request(request: IpcRequest): Promise<IpcResponse>;
  shell(request: IpcShellRequest): Promise<void>;
  /** subscribes to the control API's events (the same ApiEvent JSON as /api/events) */
  onEvent(listener: (event: unknown) => void): () => void;
}
