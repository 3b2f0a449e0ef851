import { createHash, randomBytes } from 'node:crypto';
import { readFileSync, rmSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { z } from 'zod';
import {
  LOGIN_PATH,
  SignInCodeRequestSchema,
  type BrowserSession,
  type BrowserSessions,
} from '../../../shared/ui-api.ts';
import { writeFileAtomic } from '../fs/atomic-write.ts';
import { HttpError, readJsonAs, sendJson } from './http-util.ts';

/** How long a printed sign-in link works: long enough to click, short enough to be useless later. */
export const LOGIN_CODE_TTL_MS = 10 * 60_000;
/** How long a signed-in browser stays signed in (restarts of Switchboard included). */
export const SESSION_TTL_MS = 30 * 24 * 60 * 60_000;
/** Browsers signed in at once; signing in one more forgets the oldest. */
export const MAX_SESSIONS = 64;
/** The file under tokens/ that keeps signed-in browsers across restarts (digests only, 0600). */
export const BROWSER_SESSIONS_FILE = 'browser-sessions.json';
/** Under run/: where builds with cookie sessions kept their digests; removed at start, never read. */
export const LEGACY_UI_SESSIONS_FILE = 'ui-sessions.json';

/** How an /api request was authenticated (http-server.ts decides before any route runs). */
export type ApiCaller = 'control-token' | 'browser-session';

const key = (secret: string) => createHash('sha256').update(secret).digest('hex');

const SessionsFileSchema = z.object({
  v: z.literal(1),
  sessions: z.array(
    z.object({ digest: z.string().regex(/^[0-9a-f]{64}$/), createdAt: z.number(), expiresAt: z.number() }),
  ),
});

interface Stored {
  createdAt: number;
  expiresAt: number;
}

export interface UiSessionsOptions {
  /** where signed-in browsers are kept across restarts; without it, in memory only */
  file?: string | undefined;
  now?: () => number;
}

/**
 * Sign-in for the browser UI in headless mode.
 *
 * `switchboard serve` (and `switchboard ui`) print a URL carrying a one-time code. GET /login serves
 * the UI's page and spends nothing; the page takes the code out of the address bar and trades it
 * (POST /api/ui/session, a JSON body) for a session secret it keeps in localStorage, which the
 * browser scopes to this exact origin, port included. The page sends it as `Authorization: Bearer …`
 * on every request and on the event stream. No cookie is ever set: cookies are not port-scoped, so
 * any program on another port of 127.0.0.1 that the browser visits would receive one. Another origin
 * can neither read the secret nor attach that header (it needs a CORS preflight, which the bridge
 * never grants), and the Origin guard refuses its requests anyway.
 *
 * Signed-in browsers survive a restart: the SHA-256 digest of each secret (never the secret) with its
 * expiry is kept in tokens/browser-sessions.json (0600), so a copy of that file signs nobody in.
 * Codes live in memory only: single-use, 10 minutes.
 */
export class UiSessions {
  readonly #codes = new Map<string, number>();
  readonly #sessions = new Map<string, Stored>();
  readonly #file: string | undefined;
  readonly #now: () => number;
  readonly #revokedListeners = new Set<() => void>();
  #port = 0;

  constructor(options: UiSessionsOptions = {}) {
    this.#file = options.file;
    this.#now = options.now ?? Date.now;
    this.#load();
  }

  /** Set once the listener is bound (port 0 picks a free one). */
  setPort(port: number): void {
    this.#port = port;
  }

  /** A fresh one-time sign-in URL. */
  issueLoginLink(): { url: string; expiresAt: number } {
    this.#sweep();
    const code = randomBytes(24).toString('base64url');
    const expiresAt = this.#now() + LOGIN_CODE_TTL_MS;
    this.#codes.set(key(code), expiresAt);
    return { url: `http://127.0.0.1:${this.#port}${LOGIN_PATH}?code=${code}`, expiresAt };
  }

  /** Spends a code (valid or not, it cannot be tried twice); returns a new session or undefined. */
  redeem(code: string): BrowserSession | undefined {
    const k = key(code);
    const codeExpiresAt = this.#codes.get(k);
    this.#codes.delete(k);
    if (codeExpiresAt === undefined || codeExpiresAt < this.#now()) return undefined;
    this.#sweep();
    const session = randomBytes(32).toString('base64url');
    const now = this.#now();
    const expiresAt = now + SESSION_TTL_MS;
    this.#sessions.set(key(session), { createdAt: now, expiresAt });
    // The oldest go first once there are too many (a person who signs in every day for years).
    const excess = this.#sessions.size - MAX_SESSIONS;
    if (excess > 0) for (const k of [...this.#sessions.keys()].slice(0, excess)) this.#sessions.delete(k);
    this.#save();
    return { session, expiresAt };
  }

  /** True when `authorization` is `Bearer <a live session secret of this instance>`. */
  verify(authorization: string | undefined): boolean {
    const session = bearer(authorization);
    if (!session) return false;
    const stored = this.#sessions.get(key(session));
    if (stored === undefined) return false;
    if (stored.expiresAt < this.#now()) {
      this.#sessions.delete(key(session));
      this.#save();
      return false;
    }
    return true;
  }

  /** How many browsers are signed in now, and until when the one `authorization` names is. */
  list(authorization: string | undefined): BrowserSessions {
    this.#sweep();
    const session = bearer(authorization);
    const current = session ? this.#sessions.get(key(session)) : undefined;
    return { count: this.#sessions.size, current: current ? { expiresAt: current.expiresAt } : null };
  }

  /** Signs out the browser whose secret `authorization` carries; true if it was signed in. */
  revoke(authorization: string | undefined): boolean {
    const session = bearer(authorization);
    if (!session || !this.#sessions.delete(key(session))) return false;
    this.#save();
    this.#revoked();
    return true;
  }

  /** Signs every browser out; returns how many were signed in. */
  revokeAll(): number {
    const count = this.#sessions.size;
    this.#sessions.clear();
    this.#save();
    this.#revoked();
    return count;
  }

  /** Called after sessions were revoked, so what they opened (event streams) can be closed. */
  onRevoked(listener: () => void): () => void {
    this.#revokedListeners.add(listener);
    return () => this.#revokedListeners.delete(listener);
  }

  /**
   * POST /api/ui/session {code}: the sign-in page trades its one-time code for a session secret. The
   * answer is JSON that only a page of this origin can read. A browser signed in before may send its
   * old secret along, which is then forgotten.
   */
  async handleExchange(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (!(req.headers['content-type'] ?? '').toLowerCase().startsWith('application/json'))
      throw new HttpError(415, 'send the code as JSON: {"code": "…"}');
    const { code } = await readJsonAs(req, SignInCodeRequestSchema);
    const session = this.redeem(code);
    if (!session) {
      sendJson(res, 403, {
        error:
          'that sign-in link was already used or has expired (links work once, for 10 minutes): run `switchboard ui` for a new one',
      });
      return;
    }
    this.revoke(req.headers.authorization);
    sendJson(res, 200, session);
  }

  #revoked(): void {
    for (const listener of this.#revokedListeners) listener();
  }

  #sweep(): void {
    const now = this.#now();
    for (const [k, at] of this.#codes) if (at < now) this.#codes.delete(k);
    let expired = false;
    for (const [k, s] of this.#sessions)
      if (s.expiresAt < now) {
        this.#sessions.delete(k);
        expired = true;
      }
    if (expired) this.#save();
  }

  #load(): void {
    if (!this.#file) return;
    let text: string;
    try {
      text = readFileSync(this.#file, 'utf8');
    } catch {
      return; // none yet: nobody signed in
    }
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    const parsed = SessionsFileSchema.safeParse(json);
    if (!parsed.success) {
      // Unreadable: every browser signs in again, which is safe; the file is made again on the next.
      rmSync(this.#file, { force: true });
      return;
    }
    const now = this.#now();
    for (const { digest, createdAt, expiresAt } of parsed.data.sessions)
      if (expiresAt >= now) this.#sessions.set(digest, { createdAt, expiresAt });
  }

  #save(): void {
    if (!this.#file) return;
    const sessions = [...this.#sessions].map(([digest, s]) => ({ digest, ...s }));
    writeFileAtomic(this.#file, JSON.stringify({ v: 1, sessions }) + '\n', { mode: 0o600 });
  }
}

/** The secret of `Authorization: Bearer <secret>` (the scheme case-insensitive), if that is what it is. */
function bearer(header: string | undefined): string | undefined {
  return /^bearer +([A-Za-z0-9_-]{16,128}) *$/i.exec(header ?? '')?.[1];
}
