import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Core } from '../core.ts';
import { UserError } from '../errors.ts';
import { bearerMatches } from './auth.ts';
import { createControlApi } from './control-api.ts';
import { HttpError, sendJson } from './http-util.ts';
import { refuseForeignRequest } from './origin-guard.ts';

export interface BridgeOptions {
  core: Core;
  port: number;
  controlToken: string;
}

/**
 * The bridge's HTTP listener on 127.0.0.1 only. Every request passes the Host/Origin guard and a
 * bearer token before any route sees it; errors never leak details to an unauthenticated caller.
 */
export class BridgeServer {
  readonly #options: BridgeOptions;
  readonly #api: ReturnType<typeof createControlApi>;
  #server: Server | undefined;
  #port: number;

  constructor(options: BridgeOptions) {
    this.#options = options;
    this.#port = options.port;
    this.#api = createControlApi(options.core);
  }

  get port(): number {
    return this.#port;
  }

  async listen(): Promise<number> {
    const server = createServer((req, res) => void this.#handle(req, res));
    server.keepAliveTimeout = 60_000;
    await new Promise<void>((resolve, reject) => {
      server.once('error', (err: NodeJS.ErrnoException) => {
        reject(
          err.code === 'EADDRINUSE'
            ? new UserError(`port ${this.#port} on 127.0.0.1 is already in use`, {
                hint: 'another Switchboard may be running (try: switchboard status); or choose another port with --port N',
              })
            : err,
        );
      });
      server.listen(this.#port, '127.0.0.1', () => resolve());
    });
    const address = server.address();
    if (address && typeof address === 'object') this.#port = address.port;
    this.#server = server;
    return this.#port;
  }

  async close(): Promise<void> {
    this.#api.close();
    const server = this.#server;
    this.#server = undefined;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    try {
      const refusal = refuseForeignRequest(req, this.#port);
      if (refusal) return sendJson(res, 403, { error: 'forbidden' });
      const url = new URL(req.url ?? '/', `http://127.0.0.1:${this.#port}`);
      if (url.pathname.startsWith('/api/')) {
        if (!bearerMatches(req.headers.authorization, this.#options.controlToken)) {
          return sendJson(res, 401, { error: 'unauthorized' });
        }
        return await this.#api.handle(req, res, url);
      }
      return sendJson(res, 404, { error: 'not found' });
    } catch (err) {
      if (res.headersSent) {
        res.end();
        return;
      }
      if (err instanceof HttpError) return sendJson(res, err.status, { error: err.message });
      console.error('bridge: unexpected error', err);
      return sendJson(res, 500, { error: 'internal error' });
    }
  }
}
