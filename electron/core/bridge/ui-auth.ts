import { createHash, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { z } from 'zod';
import { LOGIN_PATH } from '../../../shared/ui-api.ts';
import { writeFileAtomic } from '../fs/atomic-write.ts';

/** How long a printed sign-in link works: long enough to click, short enough to be useless later. */
export const LOGIN_CODE_TTL_MS = 10 * 60_000;
/** This caps a forgotten tab. */
export const SESSION_TTL_MS = 30 * 24 * 60 * 60_000;

const key = (secret: string) => createHash('sha256').update(secret).digest('hex');

/** run/ui-sessions.json: each live session's SHA-256 digest and when it expires (nothing replayable). */
const SessionsFileSchema = z.object({ sessions: z.record(z.string(), z.number()) });

/**
 * Sign-in for the browser UI in headless mode. `switchboard serve` prints a URL carrying a one-time
 * code; GET /login?code=… exchanges it for a session cookie (HttpOnly, SameSite=Strict, Path=/) and
 * redirects to `/`, so neither the code nor a token stays in the address bar or in page-readable
 * storage. Codes are single-use and expire after 10 minutes. Sessions outlive a restart of serve when
 * given a `file` (owner-only, in the home's run/): a page left open reconnects by itself once serve is
 * back on the same port. Only SHA-256 digests are kept, in memory and in that file, so neither a heap
 * dump nor the file holds anything replayable.
 *
 * The cookie name carries the port: cookies are not port-scoped, and two instances on one machine
 * (another home, a test) must not sign each other out.
 */
export class UiSessions {
  readonly #codes = new Map<string, number>();
  readonly #sessions = new Map<string, number>();
  readonly #now: () => number;
  readonly #file: string | undefined;
  #port = 0;

  constructor(options: { now?: () => number; file?: string } = {}) {
    this.#now = options.now ?? Date.now;
    this.#file = options.file;
    if (this.#file === undefined) return;
    try {
      const saved = SessionsFileSchema.parse(JSON.parse(readFileSync(this.#file, 'utf8')));
      const now = this.#now();
      for (const [digest, expiresAt] of Object.entries(saved.sessions))
        if (expiresAt > now) this.#sessions.set(digest, expiresAt);
    } catch {
      // none saved yet, or unreadable: browsers sign in again
    }
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
    this.#sweep();
    this.#sessions.set(key(session), this.#now() + SESSION_TTL_MS);
    this.#save();
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
      this.#save();
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

  #save(): void {
    if (this.#file === undefined) return;
    try {
      writeFileAtomic(this.#file, JSON.stringify({ sessions: Object.fromEntries(this.#sessions) }) + '\n', {
        mode: 0o600,
      });
    } catch {
      // not kept: a restart then signs this browser out, as before
    }
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
