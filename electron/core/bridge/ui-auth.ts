import { createHash, randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { LOGIN_PATH } from '../../../shared/ui-api.ts';

/** How long a printed sign-in link works: long enough to click, short enough to be useless later. */
export const LOGIN_CODE_TTL_MS = 10 * 60_000;
/** Browser sessions end with the process anyway; this caps a forgotten tab. */
export const SESSION_TTL_MS = 30 * 24 * 60 * 60_000;

const key = (secret: string) => createHash('sha256').update(secret).digest('hex');

/**
 * Sign-in for the browser UI in headless mode. `switchboard serve` prints a URL carrying a one-time
 * code; GET /login?code=… exchanges it for a session cookie (HttpOnly, SameSite=Strict, Path=/) and
 * redirects to `/`, so neither the code nor a token stays in the address bar or in page-readable
 * storage. Codes are single-use and expire after 10 minutes; sessions live in memory only (a restart
 * signs everyone out). Only SHA-256 digests are kept, so a heap dump holds nothing replayable.
 *
 * The cookie name carries the port: cookies are not port-scoped, and two instances on one machine
 * (another home, a test) must not sign each other out.
 */
export class UiSessions {
  readonly #codes = new Map<string, number>();
  readonly #sessions = new Map<string, number>();
  readonly #now: () => number;
  #port = 0;

  constructor(now: () => number = Date.now) {
    this.#now = now;
  }

  /** Set once the listener is bound (port 0 picks a free one). */
  setPort(port: number): void {
    this.#port = port;
  }

  get cookieName(): string {
    return `switchboard_session_${this.#port}`;
  }

  /** A fresh one-time sign-in URL. */
  issueLoginLink(): { url: string; expiresAt: number } {
    this.#sweep();
    const code = randomBytes(24).toString('base64url');
    const expiresAt = this.#now() + LOGIN_CODE_TTL_MS;
    this.#codes.set(key(code), expiresAt);
    return { url: `http://127.0.0.1:${this.#port}${LOGIN_PATH}?code=${code}`, expiresAt };
  }

  /** Spends a code (valid or not, it cannot be tried twice); returns a new session id or undefined. */
  redeem(code: string): string | undefined {
    const k = key(code);
    const expiresAt = this.#codes.get(k);
    this.#codes.delete(k);
    if (expiresAt === undefined || expiresAt < this.#now()) return undefined;
    const session = randomBytes(32).toString('base64url');
    this.#sessions.set(key(session), this.#now() + SESSION_TTL_MS);
    return session;
  }

  /** True when the request carries a live session cookie of this instance. */
  verify(req: IncomingMessage): boolean {
    const session = readCookie(req.headers.cookie, this.cookieName);
    if (!session) return false;
    const expiresAt = this.#sessions.get(key(session));
    if (expiresAt === undefined) return false;
    if (expiresAt < this.#now()) {
      this.#sessions.delete(key(session));
      return false;
    }
    return true;
  }

  /** GET /login?code=…: sets the cookie and sends the browser to `/` (or to a "link expired" note). */
  handleLogin(req: IncomingMessage, res: ServerResponse, url: URL): void {
    const headers: Record<string, string> = {
      'cache-control': 'no-store',
      'referrer-policy': 'no-referrer',
      'content-length': '0',
    };
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { ...headers, allow: 'GET' });
      res.end();
      return;
    }
    const code = url.searchParams.get('code') ?? '';
    const session = code ? this.redeem(code) : undefined;
    if (!session) {
      res.writeHead(303, { ...headers, location: '/?signin=expired' });
      res.end();
      return;
    }
    res.writeHead(303, {
      ...headers,
      location: '/',
      'set-cookie': `${this.cookieName}=${session}; HttpOnly; SameSite=Strict; Path=/; Max-Age=${SESSION_TTL_MS / 1000}`,
    });
    res.end();
  }

  #sweep(): void {
    const now = this.#now();
    for (const [k, at] of this.#codes) if (at < now) this.#codes.delete(k);
    for (const [k, at] of this.#sessions) if (at < now) this.#sessions.delete(k);
  }
}

function readCookie(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    if (part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim() || undefined;
  }
  return undefined;
}
