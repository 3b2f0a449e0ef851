import type { IncomingMessage } from 'node:http';
import { UiRoutes } from '../../../shared/ui-api.ts';
import { HttpError } from './http-util.ts';
import type { ApiCaller, UiSessions } from './ui-auth.ts';

/**
 * The browser sign-ins: a fresh sign-in link (control token only), sign this browser out, list the
 * signed-in browsers, sign them all out. `handle` answers undefined for what it does not own.
 */
export function createSessionRoutes(sessions: UiSessions) {
  function handle(req: IncomingMessage, path: string, caller: ApiCaller): object | undefined {
    const method = req.method ?? 'GET';
    if (path === UiRoutes.loginLink && method === 'POST') {
      // A browser session must not mint sign-in links for other browsers.
      if (caller !== 'control-token')
        throw new HttpError(403, 'only the control token can create sign-in links');
      return sessions.issueLoginLink();
    }
    if (path === UiRoutes.session && method === 'DELETE')
      return { ok: true, signedOut: sessions.revoke(req.headers.authorization) };
    if (path === UiRoutes.sessions && method === 'GET') return sessions.list(req.headers.authorization);
    if (path === UiRoutes.sessions && method === 'DELETE')
      return { ok: true, signedOut: sessions.revokeAll() };
    return undefined;
  }

  return { handle };
}
