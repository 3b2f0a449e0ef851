import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { aggregateNames } from './tool-names.ts';
import type { Upstreams } from './upstreams.ts';

export interface Route {
  /** the server's name */
  server: string;
  /** the name the server itself uses */
  original: string;
}

interface Listing {
  tools: Tool[];
  /** the server of each tool, same order */
  servers: string[];
}

/**
 * The /mcp endpoint's combined catalogue: the tools editors get of every listed server (running,
 * idle or starting; new and changed tools held back) as `<server>__<tool>`. Built once per change of
 * any server's tools, state or pin and cached, so tools/list costs one lookup.
 */
export class AggregateCatalog {
  readonly #upstreams: Upstreams;
  #tools: Listing | undefined;
  #routes = new Map<string, Route>();

  constructor(upstreams: Upstreams) {
    this.#upstreams = upstreams;
  }

  /** Call when a server's tools, state or pin changed. */
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
    // Names are made over every tool the servers list, held ones too, so accepting a change never
    // renames another tool; only the tools editors get are listed and routed.
    const pairs: { server: string; tool: string; def: Tool; callable: boolean }[] = [];
    for (const { name, tools, gate } of this.#upstreams.listed()) {
      for (const def of tools)
        pairs.push({ server: name, tool: def.name, def, callable: gate?.callable.has(def.name) ?? true });
    }
    const byPair = new Map(pairs.map((p) => [`${p.server}\0${p.tool}`, p]));
    const names = aggregateNames(pairs);
    const tools: Tool[] = [];
    const servers: string[] = [];
    const routes = new Map<string, Route>();
    for (const [name, pair] of names) {
      const p = byPair.get(`${pair.server}\0${pair.tool}`);
      if (!p) continue;
      // A held tool keeps its route, so that calling it says why it is held rather than "unknown".
      routes.set(name, { server: p.server, original: p.tool });
      if (!p.callable) continue;
      tools.push({ ...p.def, name });
      servers.push(p.server);
    }
    this.#tools = { tools, servers };
    this.#routes = routes;
  }
}
