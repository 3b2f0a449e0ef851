import { rmSync } from 'node:fs';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { join } from 'node:path';
import type { EventEmitter } from 'node:events';
import type { CallActivity } from '../activity/call-activity.ts';
import type { CoreEvents } from '../core-events.ts';
import type { HomePaths } from '../home.ts';
import { http } from '../node-http.ts';
import { createControlApi, type ControlApiCore } from './control-api.ts';
import { HttpError, sendJson } from './http-util.ts';
import { listenLocal } from './local-listener.ts';
import type { ProjectFolder } from './roots-scope.ts';
import type { ProjectRoutesDesk } from './project-routes.ts';
import { McpEndpoint, type McpEndpointCore } from './mcp-endpoint.ts';
import { refuseForeignLocalRequest, refuseForeignRequest } from './origin-guard.ts';
import { findPortHolder, portInUseError } from './port-holder.ts';
import { PeerGate, refuseConnection } from './peer-gate.ts';
import { answerWorkerScript } from './worker-kill-switch.ts';
import { peerUsersFor, type PeerUsers } from './peer-user.ts';
import type { TokenStore } from '../tokens/token-store.ts';
import type { ApiEvent } from '../../../shared/api.ts';
import { LOGIN_PATH, UiRoutes } from '../../../shared/ui-api.ts';
import type { Keychain } from '../secrets/keychain.ts';
import { BROWSER_SESSIONS_FILE, LEGACY_UI_SESSIONS_FILE, UiSessions, type ApiCaller } from './ui-auth.ts';
import type { EditorSyncService } from '../editors/service.ts';
import type { Catalog } from '../catalog/catalog.ts';
import { createBundleRoutes } from './bundle-routes.ts';
import type { CatalogRoutesCore, createCatalogRoutes } from './catalog-routes.ts';
import { createUiRoutes, type UiRoutesCore } from './ui-routes.ts';
import { createToolRoutes } from './tool-routes.ts';
import { serversForEditor, syncServers, type SyncServersCore } from '../editors/desired.ts';
import { listingOf, type ToolListSource } from '../tools/editor-tools.ts';
import type { EditorSettingsStore } from '../tools/tool-settings.ts';
import type { PackageService } from '../store/package-service.ts';
import type { AppStateStore } from '../trust/app-state.ts';
import { serveUi } from './ui-static.ts';
import { applyServersEdit } from './servers-edit.ts';

/**
 * What the bridge uses of the core: what each of its parts declares next to it (the control API, the
 * MCP endpoint, the UI's routes, the catalog's), plus what it hands the tool and bundle routes.
 */
export type BridgeCore = ControlApiCore &
  McpEndpointCore &
  UiRoutesCore &
  CatalogRoutesCore &
  SyncServersCore &
  ToolListSource & {
    readonly home: Pick<HomePaths, 'run' | 'serversFile'>;
    readonly state: EditorSettingsStore & Pick<AppStateStore, 'autoSync'>;
    readonly activity: Pick<CallActivity, 'calledBy'>;
    readonly events: Pick<EventEmitter<CoreEvents>, 'emit'>;
    readonly packages: Pick<PackageService, 'store'>;
  };

export interface BridgeOptions {
  core: BridgeCore;
  /** repositories' servers: which project each is of (projects/project-service.ts) */
  projects?: {
    projectOf(server: string): string | undefined;
    seen(project: string, editor: string): void;
    /** the projects' folders (roots routing on /mcp) */
    folders?(): readonly ProjectFolder[];
    /** the folders an editor's roots name (the offer to add one as a project) */
    roots?(editor: string, dirs: readonly string[]): void;
    /** the UI's projects section (project-routes.ts) */
    desk?: ProjectRoutesDesk;
  };
  port: number;
  /** The control API token (accepted on /api only) and one token per editor (accepted on /mcp only). */
  tokens: TokenStore;
  /** Enables the UI's routes (config edits, secrets, settings); the browser UI is served at `/`. */
  keychain?: Keychain;
  /** the built UI (default renderer/dist) */
  uiDir?: string;
  /** how long an editor's request may wait for its server (default 5 min; progress resets it) */
  requestTimeoutMs?: number | undefined;
  /** how long a 2026 editor's call that asked for input waits for its retry (default: requestTimeoutMs) */
  inputTimeoutMs?: number | undefined;
  /**
   * Where the stdio relay connects, besides the TCP port: a Unix socket path (made 0600 in an
   * owner-only folder) or a Windows named pipe (local-endpoint.ts).
   */
  localSocket?: string | undefined;
  /**
   * the MCP Registry catalog's routes (/api/catalog/…), where the composition root has one: made at
   * the first catalog request (the registry client and install planning are not loaded before)
   */
  catalog?: (() => Promise<Catalog>) | undefined;
  /**
   * Which local user opened each TCP connection (peer-user.ts; default: this platform's lookup). Any
   * other than this process's user is refused before anything else (peer-gate.ts).
   */
  peerUsers?: PeerUsers | undefined;
}

/**
 * The bridge's HTTP listener on 127.0.0.1 only. Every request passes the connection's user check
 * (this user's own processes only), the Host/Origin guard and a bearer token before any route sees
 * it; errors never leak details to an unauthenticated caller.
 */
export class BridgeServer {
  readonly #options: BridgeOptions;
  readonly #api: ReturnType<typeof createControlApi>;
  readonly #mcp: McpEndpoint;
  /** browser sign-in (one-time codes → session secrets the page keeps) for the UI in headless mode */
  readonly sessions: UiSessions;
  readonly #ui: ReturnType<typeof createUiRoutes> | undefined;
  #catalog: Promise<ReturnType<typeof createCatalogRoutes>> | undefined;
  readonly #tools: ReturnType<typeof createToolRoutes>;
  readonly #bundles: ReturnType<typeof createBundleRoutes> | undefined;
  #editors: EditorSyncService | undefined;
  #server: Server | undefined;
  #local: Server | undefined;
  /** connections that came in on the local socket, not the TCP port */
  readonly #localConnections = new WeakSet<object>();
  /** who opened each TCP connection: this user, or it is refused */
  readonly #peers: PeerGate;
  #port: number;
  readonly #stopTokenWatch: () => void;
  readonly #stopSessionWatch: () => void;

  #catalogRoutes(): Promise<ReturnType<typeof createCatalogRoutes>> | undefined {
    const make = this.#options.catalog;
    if (!make) return undefined;
    this.#catalog ??= Promise.all([import('./catalog-routes.ts'), make()]).then(([routes, catalog]) =>
      routes.createCatalogRoutes(this.#options.core, catalog),
    );
    return this.#catalog;
  }

  constructor(options: BridgeOptions) {
    this.#options = options;
    this.#port = options.port;
    const peerUsers = options.peerUsers ?? peerUsersFor();
    this.#peers = new PeerGate(peerUsers);
    // A signed-in browser outlives this serve only where each connection's user is checked (Linux): a
    // key a port squatter collected while serve was down is then worthless from its user. Elsewhere
    // nothing tells the squatter's replay from the person's browser, so a key ends with the serve that
    // issued it, and what an older serve kept is dropped (docs/decisions/other-local-users.md).
    const sessionsFile = join(options.tokens.dir, BROWSER_SESSIONS_FILE);
    if (peerUsers.coverage !== 'checked') rmSync(sessionsFile, { force: true });
    this.sessions = new UiSessions({ file: peerUsers.coverage === 'checked' ? sessionsFile : undefined });
    // Cookie sessions' digests from a home of an older build: nothing reads them any more (one sessions
    // file: tokens/browser-sessions.json), so they go rather than lie about who is signed in.
    rmSync(join(options.core.home.run, LEGACY_UI_SESSIONS_FILE), { force: true });
    this.#api = createControlApi(options.core, options.tokens);
    this.#mcp = new McpEndpoint(options.core, {
      requestTimeoutMs: options.requestTimeoutMs,
      inputTimeoutMs: options.inputTimeoutMs,
      ...(options.projects
        ? {
            projectOf: (s: string) => options.projects?.projectOf(s),
            projectSeen: (p: string, e: string) => options.projects?.seen(p, e),
            roots: {
              folders: () => options.projects?.folders?.() ?? [],
              roots: (e: string, d: readonly string[]) => options.projects?.roots?.(e, d),
            },
          }
        : {}),
    });
    this.#ui = options.keychain
      ? createUiRoutes({
          core: options.core,
          keychain: options.keychain,
          sessions: this.sessions,
          editors: () => this.#editors,
          port: () => this.#port,
          projects: () => options.projects?.desk,
        })
      : undefined;
    const core = options.core;
    this.#tools = createToolRoutes({
      serversFile: core.home.serversFile,
      state: core.state,
      hasServer: (name) => core.servers.entries().has(name),
      serversOf: (editor) => serversForEditor(editor, syncServers(core), core.state.editorSettings(editor)),
      listing: (server) => listingOf(core, server),
      filter: (server) => core.servers.entries().get(server)?.config.tools,
      calledBy: (editor) => core.activity.calledBy(editor),
      originOf: (name) => options.projects?.desk?.originOf(name),
      keepingSource: (name, run) => core.servers.withEditRecorded(name, undefined, run),
      reload: () => applyServersEdit(core),
      editorChanged: async (editor, discovery) => {
        core.events.emit('editorTools', editor);
        // Discovery mode changes the editor's entries (one for /mcp instead of one per server).
        if (discovery && core.state.autoSync() && core.state.editorSettings(editor).enabled)
          await this.#editors?.syncNow(editor);
      },
    });
    this.#bundles = options.keychain
      ? createBundleRoutes({
          store: core.packages.store,
          keychain: options.keychain,
          serversFile: core.home.serversFile,
          added: (name) => {
            core.servers.noteSource(name, 'ui');
            applyServersEdit(core);
          },
        })
      : undefined;
    // What a revoked, deleted or replaced token opened stops at once (event streams, MCP sessions).
    this.#stopTokenWatch = options.tokens.onInvalidated((names) => {
      for (const name of names) this.#mcp.closeEditor(name);
      this.#api.closeUnauthorized();
    });
    this.#stopSessionWatch = this.sessions.onRevoked(() => this.#api.closeUnauthorized());
  }

  /** Gives the UI's routes the running editor sync, and tells subscribers when editors change. */
  attachEditors(editors: EditorSyncService): void {
    this.#editors = editors;
    const changed = () => this.#api.broadcast({ type: 'editors' });
    editors.on('report', changed);
    editors.on('drift', changed);
    editors.on('restart', changed);
  }

  /**
   * Every event /api/events streams (status, removed, log, config, editors), for a subscriber in this
   * process: the desktop app relays them to its window. Returns the unsubscribe function.
   */
  onEvent(listener: (event: ApiEvent) => void): () => void {
    return this.#api.onEvent(listener);
  }

  get port(): number {
    return this.#port;
  }

  async listen(): Promise<number> {
    const server = http.createServer((req, res) => void this.#handle(req, res));
    server.keepAliveTimeout = 60_000;
    // The lookup starts as the connection is accepted, while its first request is still being read.
    server.on('connection', (socket) => void this.#peers.verdict(socket));
    await new Promise<void>((resolve, reject) => {
      server.once('error', (err: NodeJS.ErrnoException) => {
        if (err.code !== 'EADDRINUSE') return reject(err);
        // Say whose process holds the port: another user's would collect editors' tokens.
        void findPortHolder(this.#port).then(
          (holder) => reject(portInUseError(this.#port, holder)),
          () => reject(portInUseError(this.#port, undefined)),
        );
      });
      server.listen(this.#port, '127.0.0.1', () => resolve());
    });
    const address = server.address();
    if (address && typeof address === 'object') this.#port = address.port;
    this.sessions.setPort(this.#port);
    this.#server = server;
    if (this.#options.localSocket) {
      const local = http.createServer((req, res) => void this.#handle(req, res));
      local.keepAliveTimeout = 60_000;
      local.on('connection', (socket) => this.#localConnections.add(socket));
      try {
        await listenLocal(local, this.#options.localSocket);
      } catch (err) {
        await this.close();
        throw err;
      }
      this.#local = local;
    }
    return this.#port;
  }

  async close(): Promise<void> {
    this.#stopTokenWatch();
    this.#stopSessionWatch();
    this.#api.close();
    this.#mcp.close();
    const servers = [this.#server, this.#local].filter((s): s is Server => s !== undefined);
    this.#server = undefined;
    this.#local = undefined;
    for (const server of servers) server.closeAllConnections();
    await Promise.all(servers.map((server) => new Promise<void>((resolve) => server.close(() => resolve()))));
  }

  #apiCaller(req: IncomingMessage): ApiCaller | undefined {
    return callerOf(req, this.#options.tokens, this.sessions);
  }

  /** An editor's MCP request: its token first. */
  #mcpRequest(req: IncomingMessage, res: ServerResponse, pathname: string): Promise<void> {
    const editor = this.#options.tokens.verifyEditor(req.headers.authorization, req.socket);
    if (!editor) {
      unauthorized(res);
      return Promise.resolve();
    }
    return this.#mcp.handle(req, res, pathname, editor);
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    try {
      // The local socket is this user's alone (0600 in a 0700 folder); a TCP connection may be anyone's.
      if (!this.#localConnections.has(req.socket)) {
        let peer = this.#peers.verdict(req.socket);
        if (peer instanceof Promise) peer = await peer;
        if (!peer.ok) return refuseConnection(res, peer.reason);
      }
      const refusal = this.#localConnections.has(req.socket)
        ? refuseForeignLocalRequest(req)
        : refuseForeignRequest(req, this.#port);
      if (refusal) return sendJson(res, 403, { error: 'forbidden' });
      // A squatter's service worker checking for its update (worker-kill-switch.ts).
      if (answerWorkerScript(req, res)) return;
      // Every editor call: a path that is /mcp or /mcp/<server> as is needs no URL parser.
      if (req.url !== undefined && MCP_PATH.test(req.url)) return await this.#mcpRequest(req, res, req.url);
      const url = URL.parse(req.url ?? '/', `http://127.0.0.1:${this.#port}`);
      if (!url) return sendJson(res, 400, { error: 'bad request' });
      // The sign-in page is the UI's own page; it finishes the sign-in itself (ui-auth.ts).
      if (url.pathname === LOGIN_PATH) return serveUi(req, res, '/', this.#options.uiDir);
      // The one /api route without a credential: its one-time code is the credential.
      if (url.pathname === UiRoutes.session && req.method === 'POST')
        return await this.sessions.handleExchange(req, res);
      if (url.pathname.startsWith('/api/')) {
        const caller = this.#apiCaller(req);
        if (!caller) return unauthorized(res);
        const catalog = url.pathname.startsWith('/api/catalog/') ? this.#catalogRoutes() : undefined;
        if (catalog && (await (await catalog).handle(req, res, url.pathname))) return;
        if (await this.#tools.handle(req, res, url.pathname)) return;
        if (this.#bundles && (await this.#bundles.handle(req, res, url.pathname))) return;
        if (this.#ui && (await this.#ui.handle(req, res, url, caller))) return;
        return await this.#api.handle(req, res, url, () => this.#apiCaller(req) !== undefined);
      }
      if (url.pathname === '/mcp' || url.pathname.startsWith('/mcp/'))
        return await this.#mcpRequest(req, res, url.pathname);
      return serveUi(req, res, url.pathname, this.#options.uiDir);
    } catch (err) {
      if (res.headersSent) {
        res.end();
        return;
      }
      if (err instanceof HttpError) return sendJson(res, err.status, { error: err.message });
      console.error('bridge: unexpected error', err);
      return sendJson(res, 500, { error: 'internal error' });
    }
  }
}

/** /mcp and /mcp/<server> with a server name as servers.json allows it: nothing to decode or normalise. */
const MCP_PATH = /^\/mcp(?:\/[A-Za-z0-9_-]{1,48})?$/;

/**
 * The control token (CLI), or a browser UI's session secret; both only as `Authorization: Bearer …`,
 * a header no other origin can make a browser send here (ui-auth.ts). Cookies are never looked at.
 */
function callerOf(req: IncomingMessage, tokens: TokenStore, sessions: UiSessions): ApiCaller | undefined {
  if (tokens.verifyControl(req.headers.authorization)) return 'control-token';
  return sessions.verify(req.headers.authorization) ? 'browser-session' : undefined;
}

/** 401 for a missing or wrong token: the same answer either way, so it tells a caller nothing. */
function unauthorized(res: ServerResponse): void {
  res.setHeader('www-authenticate', 'Bearer realm="switchboard"');
  sendJson(res, 401, { error: 'unauthorized' });
}
