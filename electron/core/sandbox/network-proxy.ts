import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type * as Https from 'node:https';
import { createRequire } from 'node:module';
import { connect, createServer as createNetServer, isIP, type Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { http } from '../node-http.ts';
import type { GateAnswer, NetworkGate } from './network-gate.ts';

/** Where a proxy listens: a Unix socket (Linux, bound into the sandbox) or a loopback port (macOS). */
export type Listen = { path: string } | { port: 0; host: '127.0.0.1' };

export interface Listening {
  /** the socket path, or the port on 127.0.0.1 */
  address: string | number;
  close(): Promise<void>;
}

/** Hop-by-hop headers (RFC 9110 §7.6.1) and the proxy's own: never forwarded. */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-authenticate',
  'proxy-authorization',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);

/** node:https, loaded on the first absolute-form https:// request (most clients use CONNECT). */
let httpsModule: typeof Https | undefined;
const https = (): typeof Https =>
  (httpsModule ??= createRequire(import.meta.url)('node:https') as typeof Https);

/**
 * The one way out of a sandbox with a filtered network: an HTTP proxy (CONNECT for HTTPS and any
 * TCP a client tunnels, absolute-form requests for plain HTTP, and for HTTPS from clients such as
 * axios that send `GET https://…` to a proxy: then the proxy makes the TLS connection to the
 * checked address, verifying the host's certificate for its name) that asks the gate about each
 * connection. A refusal answers 403 with the reason and is told to `onRefusal` for the server's log.
 */
export async function startProxy(
  listen: Listen,
  gate: NetworkGate,
  onRefusal: (refusal: string, add: string | undefined) => void,
): Promise<Listening> {
  const server = http.createServer((req, res) => void forward(req, res, gate, onRefusal));
  server.on(
    'connect',
    (req: IncomingMessage, client: Duplex, head: Buffer) => void tunnel(req, client, head, gate, onRefusal),
  );
  server.on('clientError', (_err, socket) => socket.destroy());
  return listenOn(server, listen);
}

/**
 * A listed port on this computer, forwarded as plain TCP (Linux: socat inside the sandbox listens on
 * the same port on its own loopback and comes here through a Unix socket).
 */
export async function startPortForward(listen: Listen, port: number, host: string): Promise<Listening> {
  const server = createNetServer((client) => {
    const upstream = connect({ port, host });
    pipeBoth(client, upstream);
  });
  return listenOn(server, listen);
}

async function tunnel(
  req: IncomingMessage,
  client: Duplex,
  head: Buffer,
  gate: NetworkGate,
  onRefusal: (refusal: string, add: string | undefined) => void,
): Promise<void> {
  client.on('error', () => {});
  const target = splitHostPort(req.url ?? '');
  if (!target) {
    client.end('HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n');
    return;
  }
  const answer = await gate.decide(target.host, target.port);
  if (!answer.allowed) {
    onRefusal(answer.refusal, answer.add);
    const body = refusedText(answer);
    const status = answer.add === undefined ? '502 Bad Gateway' : '403 Forbidden';
    client.end(
      `HTTP/1.1 ${status}\r\nContent-Type: text/plain\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
    return;
  }
  const upstream = connect({ host: answer.address, port: target.port });
  upstream.once('connect', () => {
    client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
    if (head.length) upstream.write(head);
    pipeBoth(client, upstream);
  });
  upstream.once('error', (err: NodeJS.ErrnoException) => {
    client.end(`HTTP/1.1 502 Bad Gateway\r\nConnection: close\r\n\r\n${err.code ?? err.message}\n`);
  });
}

async function forward(
  req: IncomingMessage,
  res: ServerResponse,
  gate: NetworkGate,
  onRefusal: (refusal: string, add: string | undefined) => void,
): Promise<void> {
  let url: URL;
  try {
    url = new URL(req.url ?? '');
  } catch {
    res.writeHead(400, { 'Content-Type': 'text/plain' }).end('a proxy request needs an absolute URL\n');
    return;
  }
  const secure = url.protocol === 'https:';
  if (!secure && url.protocol !== 'http:') {
    res.writeHead(400, { 'Content-Type': 'text/plain' }).end('only http:// and https:// are forwarded\n');
    return;
  }
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const port = url.port ? Number(url.port) : secure ? 443 : 80;
  const answer = await gate.decide(host, port);
  if (!answer.allowed) {
    onRefusal(answer.refusal, answer.add);
    res
      .writeHead(answer.add === undefined ? 502 : 403, { 'Content-Type': 'text/plain' })
      .end(refusedText(answer));
    return;
  }
  const headers: Record<string, string | string[]> = {};
  for (const [key, value] of Object.entries(req.headers)) {
    if (value !== undefined && !HOP_BY_HOP.has(key)) headers[key] = value;
  }
  const options = {
    host: answer.address,
    port,
    method: req.method,
    path: `${url.pathname}${url.search}`,
    headers: { ...headers, host: url.host },
    setHost: false,
  };
  // TLS to the checked address, its certificate verified for the name the client asked for
  const upstream = (secure ? https().request : http.request)(
    secure ? { ...options, servername: isIP(host) ? '' : host } : options,
    (answerRes) => {
      const back: Record<string, string | string[]> = {};
      for (const [key, value] of Object.entries(answerRes.headers)) {
        if (value !== undefined && !HOP_BY_HOP.has(key)) back[key] = value;
      }
      res.writeHead(answerRes.statusCode ?? 502, answerRes.statusMessage, back);
      answerRes.pipe(res);
    },
  );
  upstream.on('error', (err: NodeJS.ErrnoException) => {
    if (!res.headersSent) res.writeHead(502, { 'Content-Type': 'text/plain' });
    res.end(`${err.code ?? err.message}\n`);
  });
  req.pipe(upstream);
}

/** What a refused client reads: the reason, and the fix only when the policy refused. */
function refusedText(answer: Extract<GateAnswer, { allowed: false }>): string {
  const fix =
    answer.add === undefined ? '' : ` (add "${answer.add}" to "sandbox": {"network": [...]} in servers.json)`;
  return `Switchboard: ${answer.refusal}${fix}\n`;
}

function pipeBoth(a: Duplex, b: Socket): void {
  a.on('error', () => b.destroy());
  b.on('error', () => a.destroy());
  a.on('close', () => b.destroy());
  b.on('close', () => a.destroy());
  a.pipe(b);
  b.pipe(a);
}

function splitHostPort(text: string): { host: string; port: number } | undefined {
  const m = /^\[([^\]]+)\]:(\d+)$/.exec(text) ?? /^([^:]+):(\d+)$/.exec(text);
  if (!m) return undefined;
  const port = Number(m[2]);
  return port > 0 && port < 65536 ? { host: m[1] ?? '', port } : undefined;
}

function listenOn(server: Server | ReturnType<typeof createNetServer>, listen: Listen): Promise<Listening> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    // Tunnels outlive their HTTP exchange: close() ends them too.
    const open = new Set<Duplex>();
    server.on('connection', (socket: Socket) => {
      open.add(socket);
      socket.once('close', () => open.delete(socket));
    });
    const done = () => {
      server.off('error', reject);
      server.unref();
      const address = server.address();
      resolve({
        address: 'path' in listen ? listen.path : typeof address === 'object' && address ? address.port : 0,
        close: () =>
          new Promise((closed) => {
            server.close(() => closed());
            for (const socket of open) socket.destroy();
          }),
      });
    };
    if ('path' in listen) server.listen(listen.path, done);
    else server.listen(listen.port, listen.host, done);
  });
}
