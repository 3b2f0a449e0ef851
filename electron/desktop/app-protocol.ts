import { extname, resolve, sep } from 'node:path';
import { CSP_NONCE_PLACEHOLDER, UI_CONTENT_TYPES, uiCsp } from '../core/bridge/ui-static.ts';

/**
 * The window loads the built renderer from `app://switchboard/`, a custom protocol the shell serves
 * (protocol.handle), not from file://: responses to a custom protocol carry headers, so every page
 * gets the same strict Content-Security-Policy as the headless UI (a header set through
 * webRequest.onHeadersReceived never reaches file:// loads). index.html gets a fresh nonce per
 * response for the style elements CodeMirror injects, exactly as `switchboard serve` does.
 */
export const APP_SCHEME = 'app';
export const APP_HOST = 'switchboard';
export const APP_START_URL = `${APP_SCHEME}://${APP_HOST}/index.html`;

export interface AppResponse {
  status: number;
  headers: Record<string, string>;
  body: Buffer | string;
}

/** Percent-encoded dots, slashes, backslashes and NUL: never needed by the built UI, only by tricks. */
const ENCODED_TRICK = /%(?:2e|2f|5c|00)/i;

/**
 * The file under `rootDir` an app:// URL names, or undefined when the URL is not one of ours or tries
 * to leave the folder (`..`, encoded dots or slashes, backslashes, another host).
 */
export function resolveAppAsset(rootDir: string, requestUrl: string): string | undefined {
  let url: URL;
  try {
    url = new URL(requestUrl);
  } catch {
    return undefined;
  }
  if (url.protocol !== `${APP_SCHEME}:` || url.host !== APP_HOST) return undefined;
  // Checked on the raw text too: URL parsing already folds `..`, but a request must not rely on it.
  const raw = requestUrl.slice(`${APP_SCHEME}://${APP_HOST}`.length).split(/[?#]/)[0] ?? '';
  if (ENCODED_TRICK.test(raw) || raw.includes('\\') || /(^|\/)\.\.?(\/|$)/.test(raw)) return undefined;
  let path: string;
  try {
    path = decodeURIComponent(url.pathname);
  } catch {
    return undefined;
  }
  if (path.includes('\0') || path.includes('\\')) return undefined;
  if (path === '/' || path === '') path = '/index.html';
  const root = resolve(rootDir);
  const file = resolve(root, `.${path}`);
  return file.startsWith(root + sep) ? file : undefined;
}

/**
 * The answer to one app:// request. `readFile` returns undefined for a missing file; `nonce` makes a
 * fresh random nonce (called once per index.html).
 */
export async function serveAppAsset(
  rootDir: string,
  requestUrl: string,
  readFile: (file: string) => Promise<Buffer | undefined>,
  nonce: () => string,
): Promise<AppResponse> {
  const file = resolveAppAsset(rootDir, requestUrl);
  const content = file ? await readFile(file) : undefined;
  if (!file || !content) {
    return { status: 404, headers: headers('.txt', uiCsp()), body: 'not found\n' };
  }
  const ext = extname(file).toLowerCase();
  if (ext === '.html') {
    const n = nonce();
    return {
      status: 200,
      headers: headers(ext, uiCsp(n)),
      body: content.toString('utf8').replaceAll(CSP_NONCE_PLACEHOLDER, n),
    };
  }
  return { status: 200, headers: headers(ext, uiCsp()), body: content };
}

function headers(ext: string, csp: string): Record<string, string> {
  return {
    'content-type': UI_CONTENT_TYPES[ext] ?? 'application/octet-stream',
    'content-security-policy': csp,
    'x-content-type-options': 'nosniff',
    'cache-control': 'no-store',
  };
}
