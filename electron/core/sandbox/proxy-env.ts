import { withPreload } from './node-proxy.ts';
import { withPythonPath } from './python-proxy.ts';

/** Where the proxy hooks are for the sandboxed program (paths as it sees them), and what it had. */
export interface ProxyHooks {
  nodeOptions?: string | undefined;
  /** node-proxy.cjs: Node follows HTTP(S)_PROXY only when asked, and this preload asks (lazily) */
  nodePreload?: string | undefined;
  pythonPath?: string | undefined;
  /** a folder with python-proxy's sitecustomize: aiohttp trusts the environment only when told */
  pythonSite?: string | undefined;
}

/**
 * The environment that sends a sandboxed server's HTTP(S) through Switchboard's proxy on `port`, one
 * table for every OS's sandbox (bwrap.ts, seatbelt.ts), so they set the same variables.
 */
export function proxyEnv(port: number, hooks: ProxyHooks): Record<string, string> {
  const proxy = `http://127.0.0.1:${port}`;
  return {
    HTTP_PROXY: proxy,
    HTTPS_PROXY: proxy,
    http_proxy: proxy,
    https_proxy: proxy,
    // everything goes through the proxy, which forwards only what the network list allows
    NO_PROXY: '',
    no_proxy: '',
    ...(hooks.nodePreload ? { NODE_OPTIONS: withPreload(hooks.nodeOptions, hooks.nodePreload) } : {}),
    ...(hooks.pythonSite ? { PYTHONPATH: withPythonPath(hooks.pythonPath, hooks.pythonSite) } : {}),
  };
}
