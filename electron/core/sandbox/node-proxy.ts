/**
 * A preload (`NODE_OPTIONS=--require …`) that sends a sandboxed Node server's HTTP(S) through its
 * proxy (HTTP_PROXY / HTTPS_PROXY), at almost no cost at start, on every Node from 18 on.
 * - Node 24.5+: Node's own proxy support. Its switch, NODE_USE_ENV_PROXY=1, loads the HTTP stack and
 *   undici eagerly and costs ~45 ms of CPU per start (bench/sandbox.ts); this sets the same agents
 *   up lazily: http's at once (cheap), fetch's on the first fetch, https's when something first
 *   loads https.
 * - Older Nodes have no such API: every http(s) Agent (the global ones, a library's own, `agent:
 *   false`) opens its connections as CONNECT tunnels through the proxy, and on the first fetch the
 *   bundled undici's global dispatcher is replaced by an Agent of its own class whose connections
 *   are such tunnels (TLS is then made over the tunnel, with the host's name and ALPN). A client
 *   that talks to the proxy itself (axios sends it absolute-form requests) is left alone.
 * Written to a file by sandboxes.ts (no file of Switchboard's own must be readable in the sandbox).
 */
export const NODE_PROXY_PRELOAD = `'use strict';
// Switchboard's sandbox: this server reaches the network only through its proxy (HTTP(S)_PROXY).
(() => {
  const env = process.env;
  const proxyText = env.HTTPS_PROXY || env.https_proxy || env.HTTP_PROXY || env.http_proxy;
  if (!proxyText) return;
  const http = require('node:http');
  const module = require('node:module');
  // When something first loads https (cheap: https loads TLS). Nodes without registerHooks at once.
  const onHttps = (setUp) => {
    if (typeof module.registerHooks !== 'function') return setUp(require('node:https'));
    const hooks = module.registerHooks({
      resolve(specifier, context, next) {
        const result = next(specifier, context);
        if (result.url === 'node:https') {
          hooks.deregister();
          setUp(require('node:https'));
        }
        return result;
      },
    });
  };
  const fetch0 = globalThis.fetch;
  const onFirstFetch = (setUp) => {
    if (typeof fetch0 !== 'function') return;
    let ready = false;
    globalThis.fetch = function fetch(...args) {
      if (!ready) {
        ready = true;
        setUp();
      }
      return fetch0.apply(this, args);
    };
  };

  let proxy;
  try {
    proxy = new URL(proxyText);
  } catch {
    return;
  }
  const proxyHost = proxy.hostname.replace(/^\\[|\\]$/g, '');
  const proxyPort = Number(proxy.port) || 80;

  if (typeof http.setGlobalProxyFromEnv === 'function') {
    // Node 24.5+: its own proxy support, set up lazily. A request to the proxy itself (axios's
    // absolute-form \`GET https://…\`) goes to it as it is: Node would refuse to proxy it again.
    const proxyEnv = { ...env, NO_PROXY: proxyHost, no_proxy: proxyHost };
    const agent = (Agent) => new Agent({ keepAlive: true, scheduling: 'lifo', timeout: 5000, proxyEnv });
    http.globalAgent = agent(http.Agent);
    // (this sets http's and https's global agents again: with the same NO_PROXY)
    onFirstFetch(() => http.setGlobalProxyFromEnv(proxyEnv));
    onHttps((https) => {
      https.globalAgent = agent(https.Agent);
    });
    return;
  }

  // Older Nodes: every connection an http(s) Agent or fetch opens is a CONNECT tunnel through the proxy.
  const net = require('node:net');
  const hostPort = (host, port) => {
    const h = String(host).replace(/^\\[|\\]$/g, '');
    return \`\${net.isIPv6(h) ? \`[\${h}]\` : h}:\${port}\`;
  };
  const isProxy = (host, port) =>
    String(host).replace(/^\\[|\\]$/g, '') === proxyHost && Number(port) === proxyPort;
  // Opens a tunnel to host:port; callback(err, socket). A refusal carries the proxy's reason.
  const tunnel = (target, callback) => {
    const req = http.request({
      host: proxyHost,
      port: proxyPort,
      method: 'CONNECT',
      path: target,
      headers: { host: target },
      setHost: false,
      createConnection: () => net.connect(proxyPort, proxyHost),
    });
    req.once('connect', (res, socket, head) => {
      if (res.statusCode === 200) {
        if (head.length) socket.unshift(head);
        callback(null, socket);
        return;
      }
      socket.destroy();
      const said = head.toString('utf8').trim();
      const err = new Error(said || \`Switchboard's proxy answered \${res.statusCode} for \${target}\`);
      err.code = res.statusCode === 403 ? 'ECONNREFUSED' : 'ECONNRESET';
      callback(err);
    });
    req.once('error', (err) => callback(err));
    req.end();
  };
  const defaultPort = (options, fallback) => Number(options.port) || fallback;

  const httpCreate = http.Agent.prototype.createConnection;
  http.Agent.prototype.createConnection = function createConnection(options, callback) {
    const host = options.host || options.hostname || 'localhost';
    const port = defaultPort(options, 80);
    if (options.socketPath || isProxy(host, port) || typeof callback !== 'function')
      return httpCreate.call(this, options, callback);
    tunnel(hostPort(host, port), callback);
  };
  onHttps((https) => {
    const httpsCreate = https.Agent.prototype.createConnection;
    https.Agent.prototype.createConnection = function createConnection(options, callback) {
      const host = options.host || options.hostname || 'localhost';
      const port = defaultPort(options, 443);
      if (options.socketPath || isProxy(host, port) || typeof callback !== 'function')
        return httpsCreate.call(this, options, callback);
      tunnel(hostPort(host, port), (err, socket) => {
        if (err) return callback(err);
        // https's own connect (its session cache, the request's TLS options) over the tunnel
        let tlsSocket;
        try {
          tlsSocket = httpsCreate.call(this, { ...options, socket });
        } catch (e) {
          socket.destroy();
          return callback(e);
        }
        callback(null, tlsSocket);
      });
    };
  });

  // fetch (undici, bundled in Node): its global dispatcher, an Agent of the same class whose
  // connections are tunnels.
  onFirstFetch(() => {
    const key = Symbol.for('undici.globalDispatcher.1');
    if (!globalThis[key]) fetch0('data:,').catch(() => {}); // loads undici, which sets its default
    const Agent = globalThis[key] && globalThis[key].constructor;
    if (typeof Agent !== 'function') return;
    const tls = require('node:tls');
    globalThis[key] = new Agent({
      connect(opts, callback) {
        const https = opts.protocol === 'https:';
        const port = Number(opts.port) || (https ? 443 : 80);
        tunnel(hostPort(opts.hostname, port), (err, socket) => {
          if (err) return callback(err);
          if (!https) return callback(null, socket);
          const name = String(opts.servername || opts.hostname).replace(/^\\[|\\]$/g, '');
          const secure = tls.connect({
            socket,
            servername: net.isIP(name) ? undefined : name,
            ALPNProtocols: ['http/1.1'],
          });
          const failed = (e) => callback(e);
          secure.once('error', failed);
          secure.once('secureConnect', () => {
            secure.removeListener('error', failed);
            callback(null, secure);
          });
        });
      },
    });
  });
})();
`;

/** NODE_OPTIONS with the preload added to what the server already had. */
export function withPreload(nodeOptions: string | undefined, path: string): string {
  return [nodeOptions, `--require "${path}"`].filter(Boolean).join(' ');
}
