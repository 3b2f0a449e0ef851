import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { http } from '../node-http.ts';
import type { AddressInfo } from 'node:net';

/** The browser came back with an authorization code; `respond` shows the person how it ended. */
export interface Callback {
  code: string;
  respond(outcome: { ok: true } | { ok: false; message: string }): void;
}

const CALLBACK_PATH = '/callback';
/** How long the browser's page waits for the token exchange before it is told to look in Switchboard. */
const RESPOND_WITHIN_MS = 30_000;

/**
 * The loopback redirect of a sign-in (RFC 8252): an HTTP listener on 127.0.0.1 only, on a free port
 * (or the port a client was registered with, when it is free), that takes exactly one answer per
 * authorization request: the one carrying the `state` that request was sent with. Anything else is
 * refused, and the code never reaches a page another site could read (no referrer, no caching).
 */
export class LoopbackListener {
  readonly #http: Server;
  readonly #server: string;
  readonly redirectUrl: string;
  #expected: { state: string; resolve: (c: Callback) => void; reject: (e: Error) => void } | undefined;

  private constructor(http: Server, server: string) {
    this.#http = http;
    this.#server = server;
    const { port } = http.address() as AddressInfo;
    this.redirectUrl = `http://127.0.0.1:${port}${CALLBACK_PATH}`;
    http.on('request', (req, res) => this.#onRequest(req, res));
  }

  /** Listens on 127.0.0.1:`preferredPort` when it is free, else on any free port. */
  static async open(options: {
    server: string;
    preferredPort?: number | undefined;
  }): Promise<LoopbackListener> {
    const server = http.createServer();
    server.keepAliveTimeout = 1_000;
    const listen = (port: number) =>
      new Promise<void>((resolve, reject) => {
        const onError = (err: Error) => reject(err);
        server.once('error', onError);
        server.listen(port, '127.0.0.1', () => {
          server.off('error', onError);
          resolve();
        });
      });
    if (options.preferredPort) {
      try {
        await listen(options.preferredPort);
        return new LoopbackListener(server, options.server);
      } catch {
        // taken: any free port will do (the client is registered again for it)
      }
    }
    await listen(0);
    return new LoopbackListener(server, options.server);
  }

  /**
   * The answer to the authorization request sent with `state`. Replaces any earlier expectation
   * (that request is no longer the one the person should finish).
   */
  expect(state: string): Promise<Callback> {
    this.#expected?.reject(new Error('a newer sign-in page was opened'));
    return new Promise<Callback>((resolve, reject) => {
      this.#expected = { state, resolve, reject };
    });
  }

  /** Stops listening; a sign-in still waiting fails with `reason`. */
  async close(reason = 'the sign-in was cancelled'): Promise<void> {
    this.#expected?.reject(new Error(reason));
    this.#expected = undefined;
    this.#http.closeAllConnections();
    await new Promise<void>((resolve) => this.#http.close(() => resolve()));
  }

  #onRequest(req: IncomingMessage, res: ServerResponse): void {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (req.method !== 'GET' || url.pathname !== CALLBACK_PATH) {
      page(res, 404, 'Not found', 'This address only takes the answer of a Switchboard sign-in.');
      return;
    }
    const expected = this.#expected;
    const state = url.searchParams.get('state');
    if (!expected || state !== expected.state) {
      page(
        res,
        400,
        'This sign-in page is out of date',
        'It does not belong to the sign-in Switchboard is waiting for. Start the sign-in again in Switchboard.',
      );
      return;
    }
    this.#expected = undefined;
    const error = url.searchParams.get('error');
    const code = url.searchParams.get('code');
    if (error || !code) {
      const description = url.searchParams.get('error_description');
      const message = error
        ? `the authorization server answered "${error}"${description ? `: ${description}` : ''}`
        : 'the authorization server sent no code back';
      page(res, 400, `Not signed in to ${this.#server}`, `${capitalize(message)}. You can close this tab.`);
      expected.reject(new Error(message));
      return;
    }
    let answered = false;
    const timer = setTimeout(
      () => respond({ ok: false, message: 'Switchboard is still finishing the sign-in' }),
      RESPOND_WITHIN_MS,
    );
    timer.unref();
    const respond = (outcome: { ok: true } | { ok: false; message: string }) => {
      if (answered) return;
      answered = true;
      clearTimeout(timer);
      if (outcome.ok)
        page(res, 200, `Signed in to ${this.#server}`, 'You can close this tab and go back to Switchboard.');
      else
        page(
          res,
          400,
          `Not signed in to ${this.#server}`,
          `${capitalize(outcome.message)}. See Switchboard for what to do.`,
        );
    };
    expected.resolve({ code, respond });
  }
}

function page(res: ServerResponse, status: number, title: string, text: string): void {
  const body = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escape(title)}</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:36rem;margin:4rem auto;padding:0 1rem;color:#1d2430}
@media (prefers-color-scheme:dark){body{background:#15181e;color:#e6e9ef}}</style></head>
<body><h1>${escape(title)}</h1><p>${escape(text)}</p></body></html>`;
  res.writeHead(status, {
    'content-type': 'text/html; charset=utf-8',
    'cache-control': 'no-store',
    // The address bar holds the code: no other page may learn it through a Referer header.
    'referrer-policy': 'no-referrer',
    'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'",
    connection: 'close',
  });
  res.end(body);
}

function escape(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
