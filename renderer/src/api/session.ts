import { BrowserSessionSchema, LOGIN_PATH, UiRoutes } from '../../../shared/ui-api.ts';

/**
 * This browser's sign-in to a `switchboard serve`: the session secret the one-time link was traded
 * for, kept in localStorage. The browser keeps localStorage per origin, port included, so no page of
 * another port or site can read it; it goes out only in the `Authorization` header of this page's
 * own requests (http.ts), never in a cookie or a URL.
 */
const STORAGE_KEY = 'switchboard.session';

interface Stored {
  session: string;
  expiresAt: number;
}

function storage(): Storage | undefined {
  try {
    return window.localStorage;
  } catch {
    return undefined; // storage turned off for this site: every page load needs a link
  }
}

/** The session secret, unless there is none or it expired. */
export function sessionSecret(): string | undefined {
  const raw = storage()?.getItem(STORAGE_KEY);
  if (!raw) return undefined;
  try {
    const stored = JSON.parse(raw) as Partial<Stored>;
    if (typeof stored.session === 'string' && typeof stored.expiresAt === 'number') {
      if (stored.expiresAt > Date.now()) return stored.session;
    }
  } catch {
    // unreadable: forgotten below
  }
  forgetSession();
  return undefined;
}

/** `{authorization}` with this browser's session, or nothing when it has none. */
export function sessionHeaders(): Record<string, string> {
  const secret = sessionSecret();
  return secret ? { authorization: `Bearer ${secret}` } : {};
}

/** Forgets the session (Switchboard said it no longer knows it, or the person signed out). */
export function forgetSession(): void {
  storage()?.removeItem(STORAGE_KEY);
}

/**
 * On the sign-in page (/login?code=…): takes the code out of the address bar and the history at once,
 * then trades it for a session. A link that was used or expired leaves `?signin=expired` for the page
 * to explain. Elsewhere it does nothing.
 */
export async function finishSignIn(): Promise<void> {
  if (window.location.pathname !== LOGIN_PATH) return;
  const code = new URLSearchParams(window.location.search).get('code') ?? '';
  const hash = window.location.hash;
  window.history.replaceState(null, '', `/${hash}`);
  let refused = false;
  try {
    const res = await fetch(UiRoutes.session, {
      method: 'POST',
      cache: 'no-store',
      credentials: 'omit',
      // A session held from before is sent along, so Switchboard forgets it.
      headers: { 'content-type': 'application/json', ...sessionHeaders() },
      body: JSON.stringify({ code }),
    });
    const parsed = BrowserSessionSchema.safeParse(await res.json().catch(() => undefined));
    if (res.ok && parsed.success) {
      storage()?.setItem(STORAGE_KEY, JSON.stringify(parsed.data satisfies Stored));
    } else refused = true;
  } catch {
    // not reachable: the page says Switchboard is not running
  }
  if (refused) window.history.replaceState(null, '', `/?signin=expired${hash}`);
}
