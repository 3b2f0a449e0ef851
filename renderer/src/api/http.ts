import { EventSourceParserStream } from 'eventsource-parser/stream';
import type { z } from 'zod';
import {
  BundleAddedSchema,
  BundleRoutes,
  BundleViewSchema,
  StorePruneResultSchema,
  StoreUsageSchema,
  UpdatesReportSchema,
  type BundleAdded,
  type BundleView,
  type StorePruneResult,
  type StoreUsage,
  type UpdatesReport,
} from '../../../shared/store.ts';
import type { SwitchboardBridge } from '../../../shared/ipc.ts';
import { ProjectsClient, type Method } from './projects-client.ts';
import type { ServerActivity } from '../../../shared/activity.ts';
import {
  ActionResultSchema,
  ApiRoutes,
  ApprovalPreviewSchema,
  type ApprovalPreview,
  type ToolChange,
  LogsResponseSchema,
  TokenCreatedSchema,
  TokenListSchema,
  type ServerAction,
} from '../../../shared/api.ts';
import type { CatalogUiApi } from '../../../shared/catalog.ts';
import type { EditorId } from '../../../shared/editors.ts';
import {
  EditorToolsViewSchema,
  ServerToolsResultSchema,
  type EditorToolsChange,
  type EditorToolsView,
  type ServerToolsChange,
} from '../../../shared/editor-tools.ts';
import type { LogLine } from '../../../shared/logs.ts';
import type { SandboxGrant } from '../../../shared/sandbox-grant.ts';
import {
  authorizationUrlProblem,
  SignInInfoSchema,
  SignInStartSchema,
  type SignInInfo,
  type SignInRequest,
  type SignInStart,
} from '../../../shared/sign-in.ts';
import { StatusReportSchema, type StatusReport } from '../../../shared/status.ts';
import {
  ActivityResponseSchema,
  AddServersResultSchema,
  ApiEventSchema,
  ApprovalsResponseSchema,
  BrowserSessionsSchema,
  EditorRestartResultSchema,
  EditorsResponseSchema,
  EditorsSyncResultSchema,
  EditorUnsyncResultSchema,
  OkSchema,
  SecretMoveResultSchema,
  SecretSetResultSchema,
  SecretsResponseSchema,
  ServerConfigViewSchema,
  SettingsSchema,
  ToolChangesResponseSchema,
  ToolsResponseSchema,
  UiApiError,
  UiErrorBodySchema,
  UiRoutes,
  type AddedServer,
  type ApiEvent,
  type ApprovalView,
  type BrowserSessions,
  type ConnectionState,
  type EditorRestartResult,
  type EditorsResponse,
  type EditorsSyncResult,
  type EditorUnsyncResult,
  type SecretSetResult,
  type SecretsResponse,
  type ServerConfigView,
  type Settings,
  type SettingsPatch,
  type TokenInfo,
  type ToolsResponse,
  type UiApi,
  type Unsubscribe,
} from '../../../shared/ui-api.ts';
import { forgetSession, sessionHeaders } from './session.ts';

/**
 * How long to wait before re-opening the event stream after it broke (doubling, capped). Capped low:
 * it is a request to this machine, and a restarted Switchboard should show up here within seconds.
 */
const RECONNECT_MS = [500, 1_000, 2_000];

/** How requests and events travel: HTTP + SSE (headless) or the desktop app's IPC bridge. */
export interface Transport {
  readonly kind: 'http' | 'ipc';
  /** resolves with any HTTP status; rejects only when the other side cannot be reached */
  request(
    method: 'GET' | 'POST' | 'PUT' | 'DELETE',
    path: string,
    body?: unknown,
  ): Promise<{ status: number; body: unknown }>;
  /** starts the event stream; `onEvent` gets each event's JSON, `onState` how the stream is doing */
  events(onEvent: (data: unknown) => void, onState: (state: 'live' | 'closed') => void): () => void;
  /** desktop-only actions; undefined in headless mode */
  setStartAtLogin?: (enabled: boolean) => Promise<void>;
  /** the desktop app opens web pages in the system browser; a browser tab opens them itself */
  openExternal?: (url: string) => Promise<void>;
}

/**
 * Fetch on the page's own origin, authenticated by this browser's session secret in the
 * `Authorization` header (session.ts); never by a cookie. The event stream is read with fetch too
 * (EventSource cannot send a header), parsed by eventsource-parser.
 */
export function httpTransport(): Transport {
  return {
    kind: 'http',
    async request(method, path, payload) {
      const res = await fetch(path, {
        method,
        credentials: 'omit',
        cache: 'no-store',
        headers: {
          ...sessionHeaders(),
          ...(payload === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(payload === undefined ? {} : { body: JSON.stringify(payload) }),
      });
      // Switchboard no longer knows this session (expired, signed out everywhere): forget it.
      if (res.status === 401) forgetSession();
      const body: unknown = await res.json().catch(() => undefined);
      return { status: res.status, body };
    },
    events(onEvent, onState) {
      const controller = new AbortController();
      const { signal } = controller;
      void (async () => {
        try {
          const res = await fetch(ApiRoutes.events, {
            credentials: 'omit',
            cache: 'no-store',
            headers: { accept: 'text/event-stream', ...sessionHeaders() },
            signal,
          });
          if (!res.ok || !res.body) {
            await res.body?.cancel();
            if (!signal.aborted) onState('closed');
            return;
          }
          onState('live');
          const reader = res.body
            .pipeThrough(new TextDecoderStream())
            .pipeThrough(new EventSourceParserStream())
            .getReader();
          for (;;) {
            const { done, value } = await reader.read();
            if (done || signal.aborted) break;
            try {
              onEvent(JSON.parse(value.data));
            } catch {
              // not JSON: ignore
            }
          }
        } catch {
          // dropped, or closed by us (aborted)
        }
        // The stream ended: the client finds out why (gone, signed out, a hiccup) and opens it again.
        if (!signal.aborted) onState('closed');
      })();
      return () => controller.abort();
    },
  };
}

/** The desktop app's preload bridge (window.switchboard): the same control API requests over IPC. */
export function ipcTransport(bridge: SwitchboardBridge): Transport {
  return {
    kind: 'ipc',
    async request(method, path, body) {
      return bridge.request(body === undefined ? { method, path } : { method, path, body });
    },
    events(onEvent, onState) {
      const off = bridge.onEvent(onEvent);
      onState('live');
      return off;
    },
    setStartAtLogin: (enabled) => bridge.shell({ type: 'set-start-at-login', enabled }),
    openExternal: (url) => bridge.shell({ type: 'open-external', url }),
  };
}

/**
 * UiApi over the control API. The transport decides how requests and events travel; this class
 * validates every answer with the shared schemas and turns failures into words.
 */
export class ControlApiClient extends ProjectsClient implements UiApi {
  readonly transport: 'http' | 'ipc';
  readonly #io: Transport;
  readonly #listeners = new Set<(event: ApiEvent) => void>();
  readonly #connectionListeners = new Set<(state: ConnectionState) => void>();
  #stop: (() => void) | undefined;
  #state: ConnectionState = 'connecting';
  #attempt = 0;
  #retryTimer: ReturnType<typeof setTimeout> | undefined;

  constructor(io: Transport) {
    super();
    this.#io = io;
    this.transport = io.kind;
  }

  // ---- queries ----

  status(): Promise<StatusReport> {
    return this.#request('GET', ApiRoutes.status, StatusReportSchema);
  }

  serverConfig(name: string): Promise<ServerConfigView> {
    return this.#request('GET', UiRoutes.serverConfig(name), ServerConfigViewSchema);
  }

  tools(name: string): Promise<ToolsResponse> {
    return this.#request('GET', UiRoutes.serverTools(name), ToolsResponseSchema);
  }

  async changeServerTools(name: string, change: ServerToolsChange): Promise<void> {
    await this.#request('POST', UiRoutes.serverTools(name), ServerToolsResultSchema, change);
  }

  editorTools(editor: EditorId): Promise<EditorToolsView> {
    return this.#request('GET', UiRoutes.editorTools(editor), EditorToolsViewSchema);
  }

  changeEditorTools(editor: EditorId, change: EditorToolsChange): Promise<EditorToolsView> {
    return this.#request('POST', UiRoutes.editorTools(editor), EditorToolsViewSchema, change);
  }

  async activity(name: string): Promise<ServerActivity | null> {
    return (await this.#request('GET', UiRoutes.serverActivity(name), ActivityResponseSchema)).activity;
  }

  async toolChanges(): Promise<ToolChange[]> {
    return (await this.#request('GET', UiRoutes.toolChanges, ToolChangesResponseSchema)).changes;
  }

  async logs(name: string, limit = 10_000): Promise<LogLine[]> {
    return (await this.#request('GET', `${ApiRoutes.logs(name)}?limit=${limit}`, LogsResponseSchema)).lines;
  }

  async approvals(): Promise<ApprovalView[]> {
    return (await this.#request('GET', UiRoutes.approvals, ApprovalsResponseSchema)).approvals;
  }

  storeUsage(): Promise<StoreUsage> {
    return this.#request('GET', ApiRoutes.store, StoreUsageSchema);
  }

  pruneStore(): Promise<StorePruneResult> {
    return this.#request('POST', ApiRoutes.storePrune, StorePruneResultSchema);
  }

  updates(): Promise<UpdatesReport> {
    return this.#request('GET', ApiRoutes.updates, UpdatesReportSchema);
  }

  checkUpdates(): Promise<UpdatesReport> {
    return this.#request('POST', ApiRoutes.updatesCheck, UpdatesReportSchema);
  }

  approvalPreview(name: string): Promise<ApprovalPreview> {
    return this.#request('GET', ApiRoutes.approval(name), ApprovalPreviewSchema);
  }

  reviewUpdate(name: string): Promise<ApprovalPreview> {
    return this.#request('GET', `${ApiRoutes.approval(name)}?fresh=1`, ApprovalPreviewSchema);
  }

  uploadBundle(fileName: string, data: string): Promise<BundleView> {
    return this.#request('POST', BundleRoutes.upload, BundleViewSchema, { fileName, data });
  }

  addBundle(id: string, name: string, values: Record<string, string>): Promise<BundleAdded> {
    return this.#request('POST', BundleRoutes.add(id), BundleAddedSchema, { name, values });
  }

  secrets(): Promise<SecretsResponse> {
    return this.#request('GET', UiRoutes.secrets, SecretsResponseSchema);
  }

  settings(): Promise<Settings> {
    return this.#request('GET', UiRoutes.settings, SettingsSchema);
  }

  async tokens(): Promise<TokenInfo[]> {
    return (await this.#request('GET', ApiRoutes.tokens, TokenListSchema)).tokens;
  }

  async editors(): Promise<EditorsResponse> {
    try {
      return await this.#request('GET', UiRoutes.editors, EditorsResponseSchema);
    } catch (err) {
      // A build without the editor-sync routes: the view explains instead of failing.
      if (err instanceof UiApiError && err.status === 404) return { available: false, editors: [] };
      throw err;
    }
  }

  signInInfo(name: string): Promise<SignInInfo> {
    return this.#request('GET', ApiRoutes.signIn(name), SignInInfoSchema);
  }

  // ---- commands ----

  signIn(name: string, request: SignInRequest = {}): Promise<SignInStart> {
    return this.#request('POST', ApiRoutes.signIn(name), SignInStartSchema, request);
  }

  async signOut(name: string): Promise<void> {
    await this.#request('DELETE', ApiRoutes.signIn(name), OkSchema.passthrough());
  }

  async openExternal(url: string): Promise<void> {
    if (this.#io.openExternal) return this.#io.openExternal(url);
    // Only sign-in pages that can be (https, or http on this computer), in a tab that cannot reach back.
    const problem = authorizationUrlProblem(url);
    if (problem) throw new UiApiError(`not opened: ${url.slice(0, 80)} (${problem})`, 0);
    window.open(url, '_blank', 'noopener,noreferrer');
  }

  async serverAction(name: string, action: Exclude<ServerAction, 'approve'>): Promise<void> {
    await this.#request('POST', ApiRoutes.serverAction(name, action), ActionResultSchema);
  }

  async approve(name: string, fingerprint: string): Promise<void> {
    await this.#request('POST', ApiRoutes.serverAction(name, 'approve'), ActionResultSchema, { fingerprint });
  }

  async acceptTools(name: string, change: string): Promise<void> {
    await this.#request('POST', ApiRoutes.acceptTools(name), OkSchema, { change });
  }

  async grantSandbox(name: string, grant: SandboxGrant): Promise<void> {
    await this.#request('POST', UiRoutes.serverGrant(name), OkSchema, grant);
  }

  async setEnabled(name: string, enabled: boolean): Promise<void> {
    await this.#request('POST', UiRoutes.serverEnabled(name), OkSchema, { enabled });
  }

  async saveServer(name: string, config: unknown): Promise<void> {
    await this.#request('PUT', UiRoutes.serverConfig(name), OkSchema, { config });
  }

  async addServer(name: string, config: unknown): Promise<AddedServer> {
    const { added } = await this.#request('POST', UiRoutes.servers, AddServersResultSchema, { name, config });
    const [server] = added;
    if (!server)
      throw new UiApiError(`Switchboard did not say whether it added "${name}"; reload the page`, 200);
    return server;
  }

  async addServers(servers: { name: string; config: unknown }[]): Promise<AddedServer[]> {
    return (await this.#request('POST', UiRoutes.servers, AddServersResultSchema, { servers })).added;
  }

  async removeServer(name: string): Promise<void> {
    await this.#request('DELETE', UiRoutes.server(name), OkSchema);
  }

  setSecret(name: string, value: string): Promise<SecretSetResult> {
    return this.#request('PUT', UiRoutes.secret(name), SecretSetResultSchema, { value });
  }

  async deleteSecret(name: string): Promise<void> {
    await this.#request('DELETE', UiRoutes.secret(name), OkSchema);
  }

  async moveSecret(server: string, key: string, secretName?: string): Promise<string> {
    const body = secretName ? { server, key, secretName } : { server, key };
    return (await this.#request('POST', UiRoutes.secretMove, SecretMoveResultSchema, body)).name;
  }

  saveSettings(patch: SettingsPatch): Promise<Settings> {
    return this.#request('PUT', UiRoutes.settings, SettingsSchema, patch);
  }

  async rotateToken(name: string): Promise<void> {
    // The answer carries the new token; the UI never shows or keeps it (editor sync writes it).
    await this.#request('POST', ApiRoutes.tokens, TokenCreatedSchema, { name });
  }

  async revokeToken(name: string): Promise<void> {
    await this.#request('DELETE', ApiRoutes.token(name), OkSchema);
  }

  syncEditors(editor?: EditorId): Promise<EditorsSyncResult> {
    return this.#request('POST', UiRoutes.editorsSync, EditorsSyncResultSchema, editor ? { editor } : {});
  }

  async restoreEditorBackup(editor: EditorId, backup: string): Promise<void> {
    await this.#request('POST', UiRoutes.editorRestore(editor), OkSchema, { backup });
  }

  unsyncEditor(editor: EditorId, restoreSecrets: boolean): Promise<EditorUnsyncResult> {
    return this.#request('POST', UiRoutes.editorUnsync(editor), EditorUnsyncResultSchema, { restoreSecrets });
  }

  restartEditor(editor: EditorId): Promise<EditorRestartResult> {
    return this.#request('POST', UiRoutes.editorRestart(editor), EditorRestartResultSchema);
  }

  setEditorExcluded(editor: EditorId, server: string, excluded: boolean): Promise<EditorsSyncResult> {
    return this.#request('POST', UiRoutes.editorExclude(editor), EditorsSyncResultSchema, {
      server,
      excluded,
    });
  }

  async setStartAtLogin(enabled: boolean): Promise<void> {
    if (!this.#io.setStartAtLogin)
      throw new UiApiError('Start at login is only available in the desktop app.', 0);
    await this.#io.setStartAtLogin(enabled);
  }

  browserSessions(): Promise<BrowserSessions> {
    return this.#request('GET', UiRoutes.sessions, BrowserSessionsSchema);
  }

  async signOutBrowsers(which: 'this' | 'all'): Promise<void> {
    const path = which === 'this' ? UiRoutes.session : UiRoutes.sessions;
    await this.#request('DELETE', path, OkSchema.passthrough());
    if (this.#io.kind === 'http') {
      // Signed out here too: the page says how to sign in again.
      forgetSession();
      this.#setState('signed-out');
      this.#close();
    }
  }

  // ---- the catalog ----

  // The catalog's schemas load with the Catalog view, not in the first bundle (the Servers view's).
  readonly catalog: CatalogUiApi = {
    search: async (request) => {
      const c = await import('../../../shared/catalog.ts');
      return this.#request('POST', c.CatalogRoutes.search, c.CatalogPageSchema, request);
    },
    server: async (request) => {
      const c = await import('../../../shared/catalog.ts');
      return this.#request('POST', c.CatalogRoutes.server, c.CatalogDetailSchema, request);
    },
    install: async (request) => {
      const c = await import('../../../shared/catalog.ts');
      return this.#request('POST', c.CatalogRoutes.install, c.CatalogInstallResultSchema, request);
    },
    registry: async () => {
      const c = await import('../../../shared/catalog.ts');
      return this.#request('GET', c.CatalogRoutes.registry, c.CatalogRegistrySchema);
    },
    setRegistry: async (url) => {
      const c = await import('../../../shared/catalog.ts');
      return this.#request('PUT', c.CatalogRoutes.registry, c.CatalogRegistrySchema, { url });
    },
  };

  // ---- subscriptions ----

  subscribe(listener: (event: ApiEvent) => void): Unsubscribe {
    this.#listeners.add(listener);
    this.#open();
    return () => {
      this.#listeners.delete(listener);
      if (this.#listeners.size === 0) this.#close();
    };
  }

  onConnection(listener: (state: ConnectionState) => void): Unsubscribe {
    this.#connectionListeners.add(listener);
    listener(this.#state);
    return () => this.#connectionListeners.delete(listener);
  }

  #setState(state: ConnectionState): void {
    if (this.#state === state) return;
    this.#state = state;
    for (const listener of this.#connectionListeners) listener(state);
  }

  #open(): void {
    if (this.#stop || this.#retryTimer !== undefined) return;
    this.#stop = this.#io.events(
      (data) => {
        const parsed = ApiEventSchema.safeParse(data);
        if (!parsed.success) return;
        for (const listener of this.#listeners) listener(parsed.data);
      },
      (state) => {
        if (state === 'live') {
          this.#attempt = 0;
          this.#setState('live');
          return;
        }
        // The stream broke or ended: find out why (gone, signed out, or a hiccup) before retrying,
        // rather than letting EventSource retry blindly while the page shows stale state as live.
        this.#stop?.();
        this.#stop = undefined;
        void this.#afterClosed();
      },
    );
  }

  async #afterClosed(): Promise<void> {
    let reachable = true;
    try {
      await this.status();
    } catch (err) {
      if (err instanceof UiApiError && err.status === 401) return; // signed out: #request set the state
      // No answer at all: Switchboard is not running (the page stays, its data from before).
      if (err instanceof UiApiError && err.status === 0) reachable = false;
    }
    if (this.#listeners.size === 0) return;
    this.#setState(reachable ? 'reconnecting' : 'offline');
    const delay = RECONNECT_MS[Math.min(this.#attempt++, RECONNECT_MS.length - 1)] ?? 2_000;
    this.#retryTimer = setTimeout(() => {
      this.#retryTimer = undefined;
      if (this.#listeners.size > 0) this.#open();
    }, delay);
  }

  #close(): void {
    this.#stop?.();
    this.#stop = undefined;
    if (this.#retryTimer !== undefined) clearTimeout(this.#retryTimer);
    this.#retryTimer = undefined;
  }

  protected send<T>(method: Method, path: string, schema: z.ZodType<T>, payload?: unknown): Promise<T> {
    return this.#request(method, path, schema, payload);
  }

  async #request<T>(
    method: 'GET' | 'POST' | 'PUT' | 'DELETE',
    path: string,
    schema: z.ZodType<T>,
    payload?: unknown,
  ): Promise<T> {
    let res: { status: number; body: unknown };
    try {
      res = await this.#io.request(method, path, payload);
    } catch {
      throw new UiApiError(
        this.transport === 'http'
          ? 'Switchboard is not reachable. Is `switchboard serve` still running? This page reconnects by itself.'
          : 'The Switchboard core is not answering. Restart the app if this persists.',
        0,
      );
    }
    if (res.status === 401) {
      this.#setState('signed-out');
      this.#close();
      throw new UiApiError(
        'You are signed out. Open the sign-in link that `switchboard serve` printed.',
        401,
      );
    }
    const body = res.body;
    if (res.status < 200 || res.status >= 300) {
      const parsed = UiErrorBodySchema.safeParse(body);
      if (parsed.success) throw new UiApiError(parsed.data.error, res.status, parsed.data.issues ?? []);
      throw new UiApiError(`Switchboard answered HTTP ${res.status} to ${method} ${path}`, res.status);
    }
    const parsed = schema.safeParse(body);
    if (!parsed.success) {
      throw new UiApiError(
        `Switchboard sent an answer this page does not understand (${method} ${path}); reload the page`,
        res.status,
      );
    }
    return parsed.data;
  }
}
