import { authorizationUrlProblem } from '../../shared/sign-in.ts';

/**
 * The app window loads only Switchboard's own UI: no navigation away, no new windows. Links to the
 * web (docs) open in the person's browser instead, and only http(s) ones. The CSP comes with every
 * response of the app:// protocol (app-protocol.ts).
 */

/**
 * True only for URLs of the app's own UI: the start page's scheme and host (app://switchboard), or
 * for a file:// start page that very file. Compared field by field: a custom scheme's `origin` is
 * "null" for every host, so comparing origins would let app://anything through.
 */
export function isOwnPage(url: string, appUrl: string): boolean {
  try {
    const target = new URL(url);
    const app = new URL(appUrl);
    if (target.protocol !== app.protocol) return false;
    if (app.protocol === 'file:') return target.pathname === app.pathname;
    return target.host === app.host && target.username === '' && target.password === '';
  } catch {
    return false;
  }
}

/** A link the window tried to open that may go to the system browser instead. */
export function isExternalWebLink(url: string): boolean {
  try {
    const { protocol } = new URL(url);
    return protocol === 'https:' || protocol === 'http:';
  } catch {
    return false;
  }
}

/**
 * The sign-in page to send to the system browser, or undefined: only https, or http on this computer
 * (shared/sign-in.ts); whatever else an authorization server names is never handed to the OS.
 */
export function signInPageToOpen(url: string): string | undefined {
  return authorizationUrlProblem(url) === undefined ? url : undefined;
}
