import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { aggregateNames } from './tool-names.ts';
import type { Upstream, Upstreams } from './upstreams.ts';

interface Route {
  upstream: Upstream;
  /** the name the server itself uses */
  original: string;
}

interface Listing {
  tools: Tool[];
  /** the server of each tool, same order */
  servers: string[];
}

/**
 * The /mcp endpoint's combined catalogue: every running server's tools as `<server>__<tool>`.
 * Built once per change of any server's tools or state and cached, so tools/list costs one lookup.
 */
export class AggregateCatalog {
  readonly #upstreams: Upstreams;
  #tools: Listing | undefined;
  #routes = new Map<string, Route>();

  constructor(upstreams: Upstreams) {
    this.#upstreams = upstreams;
  }

  /** Call when a server's tools or state changed. */
  invalidate(): void {
    this.#tools = undefined;
  }

  /** The tools of the servers the editor may reach (names made over all servers, so they are stable). */
  listTools(allowed: (server: string) => boolean): { tools: Tool[] } {
    if (!this.#tools) this.#build();
    const listing = this.#tools ?? { tools: [], servers: [] };
    if (listing.servers.every(allowed)) return { tools: listing.tools };
    return { tools: listing.tools.filter((_, i) => allowed(listing.servers[i] ?? '')) };
  }

  routeTool(name: string): Route | undefined {
    if (!this.#tools) this.#build();
    return this.#routes.get(name);
  }

  #build(): void {
    const running = this.#upstreams.running();
    const pairs: { server: string; tool: string; upstream: Upstream; def: Tool }[] = [];
    for (const upstream of running) {
      for (const def of upstream.tools) pairs.push({ server: upstream.name, tool: def.name, upstream, def });
    }
    const byPair = new Map(pairs.map((p) => [`${p.server}\0${p.tool}`, p]));
    const names = aggregateNames(pairs);
    const tools: Tool[] = [];
    const servers: string[] = [];
    const routes = new Map<string, Route>();
    for (const [name, pair] of names) {
      const p = byPair.get(`${pair.server}\0${pair.tool}`);
      if (!p) continue;
      tools.push({ ...p.def, name });
      servers.push(p.server);
      routes.set(name, { upstream: p.upstream, original: p.tool });
    }
    this.#tools = { tools, servers };
    this.#routes = routes;
  }
}
