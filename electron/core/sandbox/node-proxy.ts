/**
 * A preload (`NODE_OPTIONS=--require …`) that sends a sandboxed Node server's HTTP(S) through its
 * proxy (HTTP_PROXY / HTTPS_PROXY), at almost no cost at start. Node's own switch for that,
 * NODE_USE_ENV_PROXY=1, loads its HTTP stack and undici eagerly and costs ~45 ms of CPU per start
 * (bench/sandbox.ts); this sets the same agents up lazily: http's at once (cheap), fetch's on the
 * first fetch, https's when something first loads https. On a Node without these APIs (before 24.5)
 * it changes nothing: such a server has no network but what it reaches through a listed local port.
 * Written to a file by sandboxes.ts (no file of Switchboard's own must be readable in the sandbox).
 */
export const NODE_PROXY_PRELOAD = `'use strict';
// Switchboard's sandbox: this server reaches the network only through its proxy (HTTP(S)_PROXY).
(() => {
  const http = require('node:http');
  const agent = (Agent) => new Agent({ keepAlive: true, scheduling: 'lifo', timeout: 5000, proxyEnv: process.env });
  http.globalAgent = agent(http.Agent);
  const fetch0 = globalThis.fetch;
  let fetchReady = false;
  if (typeof fetch0 === 'function' && typeof http.setGlobalProxyFromEnv === 'function') {
    globalThis.fetch = function fetch(...args) {
      if (!fetchReady) {
        fetchReady = true;
        http.setGlobalProxyFromEnv();
      }
      return fetch0.apply(this, args);
    };
  }
  const module = require('node:module');
  if (typeof module.registerHooks !== 'function') return;
  const hooks = module.registerHooks({
    resolve(specifier, context, next) {
      const result = next(specifier, context);
      if (result.url === 'node:https') {
        hooks.deregister();
        const https = require('node:https');
        https.globalAgent = agent(https.Agent);
      }
      return result;
    },
  });
})();
`;

/** NODE_OPTIONS with the preload added to what the server already had. */
export function withPreload(nodeOptions: string | undefined, path: string): string {
  return [nodeOptions, `--require "${path}"`].filter(Boolean).join(' ');
}
