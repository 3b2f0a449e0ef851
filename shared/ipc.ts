import { z } from 'zod';
import { AcceptToolsRequestSchema, ApproveRequestSchema, CreateTokenRequestSchema } from './api.ts';
import { SignInRequestSchema } from './sign-in.ts';
import {
  ProjectAddRequestSchema,
  ProjectGiveRequestSchema,
  ProjectOfferDeclineSchema,
} from './schema/projects.ts';
import { BundleAddRequestSchema, BundleUploadRequestSchema } from './store.ts';
import { EditorToolsChangeSchema, ServerToolsChangeSchema } from './editor-tools.ts';
import {
  CatalogInstallRequestSchema,
  CatalogRegistryPatchSchema,
  CatalogSearchRequestSchema,
  CatalogServerRequestSchema,
} from './catalog.ts';
import {
  AddServerRequestSchema,
  EditorExcludeRequestSchema,
  EditorRestoreRequestSchema,
  EditorsSyncRequestSchema,
  EditorUnsyncRequestSchema,
  EnabledRequestSchema,
  SaveServerRequestSchema,
  SecretMoveRequestSchema,
  SecretValueRequestSchema,
  SettingsPatchSchema,
} from './ui-api.ts';

/**
 * The desktop app's IPC between the preload (contextBridge) and the main process. The renderer's IPC
 * implementation of UiApi sends the same control-API requests the headless UI sends over HTTP; the
 * main process validates every message with these schemas before acting on it.
 */
export { IPC_EVENT, IPC_REQUEST, IPC_SHELL } from './ipc-channels.ts';

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

interface IpcRoute {
  method: Method;
  /** matched against the whole path (no query) */
  path: RegExp;
  /** the body's schema; a route without one takes no body */
  body?: z.ZodType;
  /** the query string's shape; a route without one takes none */
  query?: RegExp;
}

/** One path segment: names of servers, secrets, tokens and editors use only these characters. */
const S = '[A-Za-z0-9_.~-]+';
const route = (method: Method, path: string, extra: Omit<IpcRoute, 'method' | 'path'> = {}): IpcRoute => ({
  method,
  path: new RegExp(`^${path}$`),
  ...extra,
});

/**
 * Every control API request the UI may send over IPC (shared/api.ts ApiRoutes, shared/ui-api.ts
 * UiRoutes); anything else is refused before it reaches the bridge. Not here: /api/events (live
 * events come over IPC_EVENT, and a stream cannot be relayed as one answer) and sign-in links for
 * browsers (/api/ui/login-link), which the desktop window has no use for.
 */
export const IPC_ROUTES: readonly IpcRoute[] = [
  route('GET', '/api/status'),
  route('GET', '/api/tokens'),
  route('POST', '/api/tokens', { body: CreateTokenRequestSchema }),
  route('DELETE', `/api/tokens/${S}`),
  route('POST', '/api/servers', { body: AddServerRequestSchema }),
  route('DELETE', `/api/servers/${S}`),
  route('POST', `/api/servers/${S}/approve`, { body: ApproveRequestSchema }),
  // what approving allows (resolving a package first); fresh=1: an update, resolved again
  route('GET', `/api/servers/${S}/approval`, { query: /^(fresh=1)?$/ }),
  route('POST', `/api/servers/${S}/(deny|start|stop|restart)`),
  route('GET', `/api/servers/${S}/logs`, { query: /^(limit=\d{1,6})?$/ }),
  route('GET', `/api/servers/${S}/config`),
  route('PUT', `/api/servers/${S}/config`, { body: SaveServerRequestSchema }),
  route('POST', `/api/servers/${S}/enabled`, { body: EnabledRequestSchema }),
  route('GET', `/api/servers/${S}/tools`),
  route('POST', `/api/servers/${S}/tools`, { body: ServerToolsChangeSchema }),
  route('GET', `/api/servers/${S}/activity`),
  route('POST', `/api/servers/${S}/accept-tools`, { body: AcceptToolsRequestSchema }),
  route('GET', '/api/tool-changes'),
  route('GET', `/api/servers/${S}/sign-in`),
  route('POST', `/api/servers/${S}/sign-in`, { body: SignInRequestSchema }),
  route('DELETE', `/api/servers/${S}/sign-in`),
  route('GET', '/api/approvals'),
  route('GET', '/api/store'),
  route('POST', '/api/store/prune'),
  route('GET', '/api/store/updates'),
  route('POST', '/api/store/updates/check'),
  route('POST', '/api/bundles', { body: BundleUploadRequestSchema }),
  route('POST', `/api/bundles/${S}/add`, { body: BundleAddRequestSchema }),
  route('GET', '/api/secrets'),
  route('POST', '/api/secrets/move', { body: SecretMoveRequestSchema }),
  route('PUT', `/api/secrets/${S}`, { body: SecretValueRequestSchema }),
  route('DELETE', `/api/secrets/${S}`),
  route('GET', '/api/projects'),
  route('POST', '/api/projects', { body: ProjectAddRequestSchema }),
  route('POST', '/api/projects/offers/decline', { body: ProjectOfferDeclineSchema }),
  route('POST', '/api/projects/give', { body: ProjectGiveRequestSchema }),
  route('DELETE', `/api/projects/${S}`),
  route('GET', '/api/settings'),
  route('PUT', '/api/settings', { body: SettingsPatchSchema }),
  route('GET', '/api/editors'),
  route('POST', '/api/editors/sync', { body: EditorsSyncRequestSchema }),
  route('POST', `/api/editors/${S}/restore`, { body: EditorRestoreRequestSchema }),
  route('POST', `/api/editors/${S}/unsync`, { body: EditorUnsyncRequestSchema }),
  route('POST', `/api/editors/${S}/restart`),
  route('POST', `/api/editors/${S}/exclude`, { body: EditorExcludeRequestSchema }),
  route('GET', `/api/editors/${S}/tools`),
  route('POST', `/api/editors/${S}/tools`, { body: EditorToolsChangeSchema }),
  route('POST', '/api/catalog/search', { body: CatalogSearchRequestSchema }),
  route('POST', '/api/catalog/server', { body: CatalogServerRequestSchema }),
  route('POST', '/api/catalog/install', { body: CatalogInstallRequestSchema }),
  route('GET', '/api/catalog/registry'),
  route('PUT', '/api/catalog/registry', { body: CatalogRegistryPatchSchema }),
];

/**
 * Why a request is not one the UI may send (undefined: it is). The path is checked as text, never
 * decoded or normalised by anyone downstream into something else: only plain segments of unreserved
 * characters, no "." or ".." segments, no percent-encoding (so no encoded dots or slashes), and then
 * it must be one of IPC_ROUTES with that method, with that route's body.
 */
export function ipcRequestProblem(request: {
  method: string;
  path: string;
  body?: unknown;
}): string | undefined {
  const [path = '', query, ...rest] = request.path.split('?');
  if (rest.length > 0) return 'more than one "?" in the path';
  const segments = path.split('/');
  if (segments[0] !== '' || segments[1] !== 'api') return 'not a control API path (/api/…)';
  for (const segment of segments.slice(1)) {
    if (!new RegExp(`^${S}$`).test(segment)) return `not a plain path segment: "${segment.slice(0, 40)}"`;
    if (segment === '.' || segment === '..') return 'the path has "." or ".." segments';
  }
  const candidates = IPC_ROUTES.filter((r) => r.path.test(path));
  if (candidates.length === 0) return `no such control API route: ${path}`;
  const matched = candidates.find((r) => r.method === request.method);
  if (!matched) return `${request.method} is not allowed on ${path}`;
  if (query !== undefined && !(matched.query?.test(query) ?? false))
    return `unexpected query "${query.slice(0, 40)}"`;
  if (!matched.body)
    return request.body === undefined ? undefined : `${request.method} ${path} takes no body`;
  const body = matched.body.safeParse(request.body);
  if (body.success) return undefined;
  const issue = body.error.issues[0];
  return `invalid body for ${request.method} ${path}${issue?.path.length ? ` (${issue.path.join('.')})` : ''}: ${issue?.message ?? 'unknown problem'}`;
}

export const IpcRequestSchema = z
  .object({
    method: z.enum(['GET', 'POST', 'PUT', 'DELETE']),
    path: z.string().max(2048),
    body: z.unknown().optional(),
  })
  .strict()
  .superRefine((request, ctx) => {
    const problem = ipcRequestProblem(request);
    if (problem) ctx.addIssue({ code: 'custom', message: problem, path: ['path'] });
  });
export type IpcRequest = z.infer<typeof IpcRequestSchema>;

export const IpcResponseSchema = z.object({ status: z.number().int(), body: z.unknown() });
export type IpcResponse = z.infer<typeof IpcResponseSchema>;

/** Desktop-only actions the views may ask the shell for. */
export const IpcShellRequestSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('set-start-at-login'), enabled: z.boolean() }).strict(),
  z
    .object({
      type: z.literal('open-external'),
      // Only web pages go to the browser: no file:, javascript:, custom schemes or credentials.
      url: z
        .url({ protocol: /^https?$/ })
        .max(2048)
        .refine((url) => !/^[a-z]+:\/\/[^/?#]*@/i.test(url), 'a link with credentials in it'),
    })
    .strict(),
]);
export type IpcShellRequest = z.infer<typeof IpcShellRequestSchema>;

/** What the preload exposes as `window.switchboard`. */
export interface SwitchboardBridge {
  request(request: IpcRequest): Promise<IpcResponse>;
  shell(request: IpcShellRequest): Promise<void>;
  /** subscribes to the control API's events (the same ApiEvent JSON as /api/events) */
  onEvent(listener: (event: unknown) => void): () => void;
}
