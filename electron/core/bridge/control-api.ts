import type { EventEmitter } from 'node:events';
import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  AcceptToolsRequestSchema,
  ApiRoutes,
  ApproveRequestSchema,
  CreateTokenRequestSchema,
  ServerActionSchema,
  type ApiEvent,
  type ApprovalPreview,
  type ApprovalResult,
  type ToolReview,
} from '../../../shared/api.ts';
import type { LogLine } from '../../../shared/logs.ts';
import type { ServerSource } from '../../../shared/schema/state.ts';
import {
  SignInRequestSchema,
  type SignInInfo,
  type SignInRequest,
  type SignInStart,
} from '../../../shared/sign-in.ts';
import type { StatusReport } from '../../../shared/status.ts';
import type { OutdatedEntry, StorePruneResult, StoreUsage } from '../../../shared/store.ts';
import type { CallActivity } from '../activity/call-activity.ts';
import type { CoreEvents } from '../core-events.ts';
import { describeError, StaleApprovalError, StaleToolChangeError } from '../errors.ts';
import {
  decodePathSegment,
  HttpError,
  readBody,
  readJson,
  readJsonAs,
  sendJson,
  sendUserError,
} from './http-util.ts';
import type { UpdateChecks } from '../store/update-checks.ts';
import type { TokenStore } from '../tokens/token-store.ts';

/**
 * What the control API uses of the core: what it streams (events, call activity), the status, the
 * trust decisions and server actions it takes on a person's behalf, the package store, sign-ins.
 */
export interface ControlApiCore {
  readonly events: Pick<EventEmitter<CoreEvents>, 'on'>;
  readonly activity: Pick<CallActivity, 'onCalls' | 'all'>;
  readonly updates: Pick<UpdateChecks, 'check' | 'report'>;
  readonly status: { report(): StatusReport };
  readonly store: {
    storeUsage(): StoreUsage;
    pruneStore(): StorePruneResult;
    outdated(names?: readonly string[]): Promise<OutdatedEntry[]>;
  };
  readonly logs: { lines(name: string, limit?: number): LogLine[] };
  readonly approvals: {
    preview(name: string, options?: { fresh?: boolean }): Promise<ApprovalPreview>;
    approve(name: string, fingerprint: string, source?: ServerSource): ApprovalResult;
    deny(name: string): void;
  };
  readonly tools: {
    toolReview(name: string): ToolReview;
    acceptTools(name: string, change: string): void;
  };
  readonly lifecycle: {
    startServer(name: string): Promise<void>;
    stopServer(name: string): Promise<void>;
    restartServer(name: string): Promise<void>;
  };
  readonly signIns: {
    signIn(name: string, request?: SignInRequest): Promise<SignInStart>;
    signOut(name: string): Promise<boolean>;
    signInInfo(name: string): Promise<SignInInfo>;
  };
}

/**
 * /api/...: status, trust decisions, start/stop/restart, logs, and /api/events (server-sent events).
 * Authentication and Host/Origin checks happen before a request reaches here (bridge/http-server.ts).
 */
export function createControlApi(core: ControlApiCore, tokens: TokenStore) {
  /** open /api/events streams, each with how to tell that what opened it still authorizes it */
  const subscribers = new Map<ServerResponse, () => boolean>();
  const listeners = new Set<(event: ApiEvent) => void>();
  const broadcast = (event: ApiEvent) => {
    const frame = `data: ${JSON.stringify(event)}\n\n`;
    for (const res of subscribers.keys()) res.write(frame);
    for (const listener of listeners) listener(event);
  };
  /** The same events /api/events streams, for an in-process subscriber (the desktop app's window). */
  const onEvent = (listener: (event: ApiEvent) => void): (() => void) => {
    listeners.add(listener);
    return () => listeners.delete(listener);
  };
  const onStatus = (status: ApiEvent & { type: 'status' }) => broadcast(status);
  core.events.on('status', (status) => onStatus({ type: 'status', status }));
  core.events.on('removed', (name) => broadcast({ type: 'removed', name }));
  core.events.on('log', (line) => broadcast({ type: 'log', line }));
  core.events.on('config', (report) => broadcast({ type: 'config', report }));
  core.events.on('toolChange', (server) => broadcast({ type: 'tool-change', server }));
  core.events.on('editorTools', (editor) => broadcast({ type: 'editor-tools', editor }));
  core.activity.onCalls((servers) => broadcast({ type: 'activity', servers }));
  core.events.on('signIn', (outcome) => broadcast({ type: 'sign-in', outcome }));
  core.events.on('stopping', (at) => broadcast({ type: 'stopping', at }));
  core.events.on('updates', () => broadcast({ type: 'updates' }));
  core.events.on('approval', (server) => broadcast({ type: 'approval', server }));
  core.events.on('projects', () => broadcast({ type: 'projects' }));
  const keepAlive = setInterval(() => {
    for (const res of subscribers.keys()) res.write(': keep-alive\n\n');
  }, 15_000);
  keepAlive.unref();

  /** `authorized` re-checks the request's credentials: an event stream ends once they stop working. */
  async function handle(
    req: IncomingMessage,
    res: ServerResponse,
    url: URL,
    authorized: () => boolean = () => true,
  ): Promise<void> {
    const path = url.pathname;
    if (path === '/api/status' && req.method === 'GET')
      return sendJson(res, 200, { ...core.status.report(), activity: core.activity.all() });
    if (path === '/api/events' && req.method === 'GET') {
      res.writeHead(200, {
        'content-type': 'text/event-stream',
        'cache-control': 'no-store',
        connection: 'keep-alive',
      });
      res.write(
        `data: ${JSON.stringify({ type: 'config', report: core.status.report() } satisfies ApiEvent)}\n\n`,
      );
      subscribers.set(res, authorized);
      req.on('close', () => subscribers.delete(res));
      return;
    }
    if (path === ApiRoutes.tokens || path.startsWith(ApiRoutes.tokens + '/'))
      return handleTokens(req, res, path);
    if (path === ApiRoutes.store && req.method === 'GET') return sendJson(res, 200, core.store.storeUsage());
    if (path === ApiRoutes.storePrune && req.method === 'POST')
      return sendJson(res, 200, core.store.pruneStore());
    if (path === ApiRoutes.outdated && req.method === 'GET') {
      const names = url.searchParams.getAll('server');
      // Every server checked: what the UI shows as found by the last check, too.
      if (names.length === 0) return sendJson(res, 200, { servers: (await core.updates.check()).servers });
      return sendJson(res, 200, { servers: await core.store.outdated(names) });
    }
    if (path === ApiRoutes.updates && req.method === 'GET') return sendJson(res, 200, core.updates.report());
    if (path === ApiRoutes.updatesCheck && req.method === 'POST')
      return sendJson(res, 200, await core.updates.check());
    const match = /^\/api\/servers\/([^/]+)\/([a-z-]+)$/.exec(path);
    if (!match) throw new HttpError(404, `no such endpoint: ${req.method} ${path}`);
    const name = decodePathSegment(match[1] ?? '');
    const action = match[2] ?? '';
    try {
      if (action === 'logs' && req.method === 'GET') {
        const limit = Math.min(Number(url.searchParams.get('limit') ?? 500) || 500, 10_000);
        return sendJson(res, 200, { lines: core.logs.lines(name, limit) });
      }
      if (action === 'approval' && req.method === 'GET')
        return sendJson(
          res,
          200,
          await core.approvals.preview(name, { fresh: url.searchParams.get('fresh') === '1' }),
        );
      if (action === 'tool-review' && req.method === 'GET')
        return sendJson(res, 200, core.tools.toolReview(name));
      if (action === 'accept-tools' && req.method === 'POST') {
        core.tools.acceptTools(name, await shownChange(req, name));
        return sendJson(res, 200, { ok: true });
      }
      if (action === 'sign-in') return await handleSignIn(req, res, name);
      const parsed = ServerActionSchema.safeParse(action);
      if (!parsed.success || req.method !== 'POST')
        throw new HttpError(404, `no such endpoint: ${req.method} ${path}`);
      switch (parsed.data) {
        case 'approve':
          return sendJson(res, 200, {
            ok: true,
            approval: core.approvals.approve(name, await shownFingerprint(req, name), 'cli'),
          });
        case 'deny':
          core.approvals.deny(name);
          break;
        case 'start':
          await core.lifecycle.startServer(name);
          break;
        case 'stop':
          await core.lifecycle.stopServer(name);
          break;
        case 'restart':
          await core.lifecycle.restartServer(name);
          break;
      }
      return sendJson(res, 200, { ok: true });
    } catch (err) {
      // 409: the request was fine, but what it approves is no longer what is configured.
      if (err instanceof StaleApprovalError || err instanceof StaleToolChangeError)
        return sendJson(res, 409, { error: describeError(err) });
      sendUserError(res, err);
    }
  }

  /** The fingerprint an approve request carries: that of the configuration that was shown. */
  async function shownFingerprint(req: IncomingMessage, name: string): Promise<string> {
    const body = (await readBody(req)).toString('utf8');
    const parsed = ApproveRequestSchema.safeParse(body.trim() === '' ? undefined : safeJson(body));
    if (parsed.success) return parsed.data.fingerprint;
    throw new HttpError(
      400,
      `approving "${name}" needs the fingerprint of the configuration that was shown: ` +
        `{"fingerprint": "<64 hex digits>"} (GET ${ApiRoutes.approval(name)} shows it with the configuration)`,
    );
  }

  /** The change id an accept-tools request carries: that of the change to the tools that was shown. */
  async function shownChange(req: IncomingMessage, name: string): Promise<string> {
    const body = (await readBody(req)).toString('utf8');
    const parsed = AcceptToolsRequestSchema.safeParse(body.trim() === '' ? undefined : safeJson(body));
    if (parsed.success) return parsed.data.change;
    throw new HttpError(
      400,
      `accepting the tools of "${name}" needs the id of the change that was shown: ` +
        `{"change": "<64 hex digits>"} (GET ${ApiRoutes.toolReview(name)} shows it with the change)`,
    );
  }

  /** /api/servers/<name>/sign-in: what there is (GET), start one (POST), sign out (DELETE). */
  async function handleSignIn(req: IncomingMessage, res: ServerResponse, name: string): Promise<void> {
    if (req.method === 'GET') return sendJson(res, 200, await core.signIns.signInInfo(name));
    if (req.method === 'DELETE')
      return sendJson(res, 200, { ok: true, signedOut: await core.signIns.signOut(name) });
    if (req.method !== 'POST') throw new HttpError(405, `${req.method} is not allowed on sign-in`);
    return sendJson(
      res,
      200,
      await core.signIns.signIn(name, await readJsonAs(req, SignInRequestSchema, {})),
    );
  }

  /** /api/tokens: list (GET), create or rotate (POST {"name"}), revoke (DELETE /api/tokens/<name>). */
  async function handleTokens(req: IncomingMessage, res: ServerResponse, path: string): Promise<void> {
    try {
      if (path === ApiRoutes.tokens && req.method === 'GET')
        return sendJson(res, 200, { tokens: tokens.list() });
      if (path === ApiRoutes.tokens && req.method === 'POST') {
        const parsed = CreateTokenRequestSchema.safeParse(await readJson(req));
        if (!parsed.success)
          throw new HttpError(
            400,
            `invalid request: ${parsed.error.issues[0]?.message ?? 'expected {"name"}'}`,
          );
        return sendJson(res, 200, tokens.create(parsed.data.name));
      }
      const name = decodePathSegment(path.slice(ApiRoutes.tokens.length + 1));
      if (name && !name.includes('/') && req.method === 'DELETE') {
        if (!tokens.revoke(name)) throw new HttpError(404, `no token named "${name}"`);
        return sendJson(res, 200, { ok: true });
      }
      throw new HttpError(404, `no such endpoint: ${req.method} ${path}`);
    } catch (err) {
      sendUserError(res, err);
    }
  }

  /** Ends the event streams whose token no longer works (revoked or replaced). */
  function closeUnauthorized(): void {
    for (const [res, authorized] of subscribers) {
      if (authorized()) continue;
      subscribers.delete(res);
      res.end();
    }
  }

  function close(): void {
    clearInterval(keepAlive);
    for (const res of subscribers.keys()) res.end();
    subscribers.clear();
  }

  return { handle, close, broadcast, onEvent, closeUnauthorized };
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
