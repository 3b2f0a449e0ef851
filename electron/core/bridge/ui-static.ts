import { randomBytes } from 'node:crypto';
import { createReadStream, readFileSync, statSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { extname, join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The built renderer (npm run build:renderer). */
export const DEFAULT_UI_DIR = fileURLToPath(new URL('../../../renderer/dist/', import.meta.url));

/** The build leaves this in index.html where each response puts a fresh nonce (renderer/vite.config.ts). */
export const CSP_NONCE_PLACEHOLDER = '__SWITCHBOARD_CSP_NONCE__';

/**
 * The UI's Content Security Policy: only this origin's scripts, styles and connections; no inline
 * script, no eval, no framing, no plugins. The one exception is style elements carrying this
 * response's nonce: CodeMirror injects its styles that way (React sets style properties through the
 * CSSOM, which needs nothing).
 */
export function uiCsp(nonce?: string): string {
  return [
    "default-src 'none'",
    "script-src 'self'",
    nonce ? `style-src 'self' 'nonce-${nonce}'` : "style-src 'self'",
    "img-src 'self' data:",
    "font-src 'self'",
    "connect-src 'self'",
    "manifest-src 'self'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/** Content types of the files a built UI has; the desktop app's app:// protocol serves the same. */
export const UI_CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.webp': 'image/webp',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
};

const SECURITY_HEADERS = {
  'content-security-policy': uiCsp(),
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
};

/**
 * Serves the built UI at `/` (GET/HEAD). index.html is never cached (it names the current hashed
 * bundles); files under assets/ carry a content hash and are cached for good. Paths cannot leave the
 * UI folder; anything not found is a 404, and a missing build says how to make it.
 */
export function serveUi(
  req: IncomingMessage,
  res: ServerResponse,
  pathname: string,
  dir = DEFAULT_UI_DIR,
): void {
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    res.writeHead(405, { allow: 'GET, HEAD', 'content-length': '0', ...SECURITY_HEADERS });
    res.end();
    return;
  }
  let relative: string;
  try {
    relative = decodeURIComponent(pathname);
  } catch {
    return notFound(res);
  }
  if (relative === '/' || relative === '/index.html') relative = '/index.html';
  if (relative.includes('\0')) return notFound(res);
  const root = resolve(dir);
  const file = resolve(join(root, relative));
  if (!file.startsWith(root + sep)) return notFound(res);

  let size: number;
  try {
    const stat = statSync(file);
    if (!stat.isFile()) return notFound(res);
    size = stat.size;
  } catch {
    if (relative === '/index.html') return notBuilt(res);
    return notFound(res);
  }
  if (relative === '/index.html') return sendIndex(req, res, file);
  const type = UI_CONTENT_TYPES[extname(file).toLowerCase()] ?? 'application/octet-stream';
  const immutable = relative.startsWith('/assets/');
  res.writeHead(200, {
    'content-type': type,
    'content-length': String(size),
    'cache-control': immutable ? 'public, max-age=31536000, immutable' : 'no-store',
    ...SECURITY_HEADERS,
  });
  if (req.method === 'HEAD') {
    res.end();
    return;
  }
  createReadStream(file)
    .on('error', () => res.destroy())
    .pipe(res);
}

/** index.html with a fresh CSP nonce, never cached. */
function sendIndex(req: IncomingMessage, res: ServerResponse, file: string): void {
  const nonce = randomBytes(16).toString('base64');
  const body = Buffer.from(readFileSync(file, 'utf8').replaceAll(CSP_NONCE_PLACEHOLDER, nonce));
  res.writeHead(200, {
    'content-type': UI_CONTENT_TYPES['.html'],
    'content-length': String(body.length),
    'cache-control': 'no-store',
    ...SECURITY_HEADERS,
    'content-security-policy': uiCsp(nonce),
  });
  res.end(req.method === 'HEAD' ? undefined : body);
}

function notFound(res: ServerResponse): void {
  sendText(res, 404, 'not found\n');
}

function notBuilt(res: ServerResponse): void {
  sendText(
    res,
    503,
    'The Switchboard UI is not built in this checkout.\n' +
      'Build it with: npm run build:renderer   (then reload this page)\n' +
      'The control API and the bridge work without it.\n',
  );
}

function sendText(res: ServerResponse, status: number, body: string): void {
  res.writeHead(status, {
    'content-type': 'text/plain; charset=utf-8',
    'content-length': String(Buffer.byteLength(body)),
    'cache-control': 'no-store',
    ...SECURITY_HEADERS,
  });
  res.end(body);
}
