/**
 * A preload (`NODE_OPTIONS=--require …`) that sends a sandboxed Node server's HTTP(S) through its
 * proxy (HTTP_PROXY / HTTPS_PROXY) on every Node from 18 on, at almost no cost at start. Every
 * http(s) Agent (the global ones, a library's own, `agent: false`) opens its connections as CONNECT
 * tunnels through the proxy, and on the first fetch the bundled undici's global dispatcher is
 * replaced by an Agent of its own class whose connections are such tunnels (TLS then made over the
 * tunnel, with the host's name and ALPN). Loopback is tried directly first, as a raw connection
 * would be: on Linux it is the sandbox's own (its helpers, the relays of listed ports, the proxy, to
 * which axios sends absolute-form requests); where nothing listens, through the proxy, whose refusal
 * says how to list this computer's port. On macOS the profile lets only the proxy's and listed ports
 * through.
 * Not Node's own support (24.5+: `NODE_USE_ENV_PROXY=1`, `proxyEnv` agents): it is missing on the
 * Nodes most people have, its switch costs ~45 ms of CPU per start (bench/sandbox.ts), and it
 * reaches only the global agents, not a library's own.
 * Written to a file by sandboxes.ts (no file of Switchboard's own must be readable in the sandbox).
 */
export const NODE_PROXY_PRELOAD = `'use strict';
// Switchboard's sandbox: this server reaches the network only through its proxy (HTTP(S)_PROXY).
(() => {
  const env = process.env;
  const proxyText = env.HTTPS_PROXY || env.https_proxy || env.HTTP_PROXY || env.http_proxy;
  if (!proxyText) return;
  let proxy;
  try {
    proxy = new URL(proxyText);
  } catch {
    return;
  }
  const proxyHost = proxy.hostname.replace(/^\\[|\\]$/g, '');
  const proxyPort = Number(proxy.port) || 80;
  const http = require('node:http');
  const module = require('node:module');
  // https (which loads TLS) is set up when something first loads it; on Nodes without registerHooks
  // (18, 20), at once: an ES import of it passes nothing else a preload can see.
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
  // fetch's part (it loads undici) on the first fetch.
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

  // Every connection an http(s) Agent or fetch opens is a CONNECT tunnel through the proxy.
  const net = require('node:net');
  const hostPort = (host, port) => {
    const h = String(host).replace(/^\\[|\\]$/g, '');
    return \`\${net.isIPv6(h) ? \`[\${h}]\` : h}:\${port}\`;
  };
  // This computer (on Linux: the sandbox's own loopback)
  const direct = (host) => {
    const h = String(host).replace(/^\\[|\\]$/g, '').toLowerCase();
    return (
      h === 'localhost' || h.endsWith('.localhost') || /^127\\./.test(h) || h === '::1' || h === '0.0.0.0' || h === '::'
    );
  };
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
  // A socket to host:port: loopback directly, as a raw connection would (on Linux the sandbox's own:
  // its helpers, the relays of listed ports), then through the proxy if nothing listens there (the
  // proxy then says whether this computer's port is listed, and how to list it); the rest tunnelled.
  const open = (host, port, callback) => {
    const h = String(host).replace(/^\\[|\\]$/g, '');
    if (!direct(h)) return tunnel(hostPort(h, port), callback);
    const socket = net.connect({ host: h, port });
    const failed = (err) => (err.code === 'ECONNREFUSED' ? tunnel(hostPort(h, port), callback) : callback(err));
    socket.once('error', failed);
    socket.once('connect', () => {
      socket.removeListener('error', failed);
      callback(null, socket);
    });
  };
  const hostOf = (options) => options.host || options.hostname || 'localhost';

  const httpCreate = http.Agent.prototype.createConnection;
  http.Agent.prototype.createConnection = function createConnection(options, callback) {
    if (options.socketPath || typeof callback !== 'function') return httpCreate.call(this, options, callback);
    open(hostOf(options), Number(options.port) || 80, callback);
  };
  onHttps((https) => {
    const httpsCreate = https.Agent.prototype.createConnection;
    https.Agent.prototype.createConnection = function createConnection(options, callback) {
      if (options.socketPath || typeof callback !== 'function') return httpsCreate.call(this, options, callback);
      open(hostOf(options), Number(options.port) || 443, (err, socket) => {
        if (err) return callback(err);
        // https's own connect (its session cache, the request's TLS options) over that socket
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
  // connections are opened as above.
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
        const host = String(opts.hostname).replace(/^\\[|\\]$/g, '');
        const opened = (socket) => {
          if (!https) return callback(null, socket);
          const name = String(opts.servername || host).replace(/^\\[|\\]$/g, '');
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
        };
        open(host, port, (err, socket) => (err ? callback(err) : opened(socket)));
      },
    });
  });
})();
`;

/** NODE_OPTIONS with the preload added to what the server already had. */
export function withPreload(nodeOptions: string | undefined, path: string): string {
  return [nodeOptions, `--require "${path}"`].filter(Boolean).join(' ');
}
