import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { API_NAME_MAX, limitsOf } from '../../../shared/tool-limits.ts';
import { AGGREGATE_ENTRY } from '../../../shared/bridge.ts';
import type { ToolAccess, ToolOffer } from './tool-access.ts';
import { ToolIndex } from '../tools/discovery.ts';
import { aggregateNames } from '../tools/tool-names.ts';
import type { Upstreams } from './upstreams.ts';

export interface Route {
  /** the server's name */
  server: string;
  /** the name the server itself uses */
  original: string;
}

/** The names of every tool of every listed server at one length budget, both ways. */
interface Names {
  routes: Map<string, Route>;
  /** `server\0tool` → name */
  byPair: Map<string, string>;
}

/** What find_tools gives for one tool: the name to call it by (call_tool, or tools/call on /mcp) and how. */
export interface FoundTool {
  name: string;
  server: string;
  title?: string;
  description?: string;
  inputSchema: Tool['inputSchema'];
}

interface Listing {
  /** the offers it was made from, per listed server (undefined: not allowed) */
  offers: (ToolOffer | undefined)[];
  tools: Tool[];
}

/**
 * The /mcp endpoint's combined catalogue: the tools each token gets of every listed server (running,
 * idle or starting; held-back, filtered-out and unselected tools left out, tool-access.ts) as
 * `<server>__<tool>` (tool-names.ts). Names are made over every tool the servers list, so accepting a
 * change or turning a tool on renames no other; they are made once per change of any server's tools,
 * state or pin, per name budget (clients with a name limit get shorter names). A token's list is kept
 * until one of its offers changes, so tools/list costs a lookup per server and tools/call one lookup.
 */
export class AggregateCatalog {
  readonly #upstreams: Upstreams;
  readonly #access: ToolAccess;
  #servers: string[] | undefined;
  readonly #names = new Map<number, Names>();
  readonly #listings = new Map<string, Listing>();
  /** find_tools' index: kept across changes, each server's part made again only when its tools change */
  readonly #index = new ToolIndex();
  #indexed = false;

  constructor(upstreams: Upstreams, access: ToolAccess) {
    this.#upstreams = upstreams;
    this.#access = access;
  }

  /** Call when a server's tools, state or pin changed. */
  invalidate(): void {
    this.#servers = undefined;
    this.#names.clear();
    this.#listings.clear();
    this.#indexed = false;
  }

  /**
   * Brings find_tools' index up to date (each server's part made again only if its tools changed):
   * the first search after Switchboard starts would otherwise make it whole (~70 ms of CPU for 2,000
   * tools, docs/performance.md), so a discovery-mode session's initialize makes it beforehand.
   */
  prepareIndex(): ToolIndex {
    if (!this.#indexed) this.#index.update(this.#upstreams.listed());
    this.#indexed = true;
    return this.#index;
  }

  /**
   * find_tools: the `limit` tools that best match `query` among those `token` may call (held-back,
   * filtered-out and unselected tools are never found), from the lists servers gave on their last
   * run: searching starts no server.
   */
  find(token: string, allowed: (server: string) => boolean, query: string, limit: number): FoundTool[] {
    const index = this.#indexed ? this.#index : this.prepareIndex();
    const offers = new Map<string, ToolOffer | undefined>();
    const offerOf = (server: string) => {
      if (!offers.has(server))
        offers.set(server, allowed(server) ? this.#access.offer(token, server) : undefined);
      return offers.get(server);
    };
    const callable = (doc: number) => {
      const entry = index.docs[doc];
      return entry !== undefined && offerOf(entry.server)?.callable.has(entry.tool.name) === true;
    };
    const found: FoundTool[] = [];
    for (const { doc } of index.search(query, limit, callable)) {
      const entry = index.docs[doc];
      const name = entry && this.nameOf(token, entry.server, entry.tool.name);
      if (!entry || name === undefined) continue;
      const { title, description, inputSchema } = entry.tool;
      found.push({
        name,
        server: entry.server,
        ...(title !== undefined ? { title } : {}),
        ...(description !== undefined ? { description } : {}),
        inputSchema,
      });
    }
    return found;
  }

  /** The tools `token` gets of the servers it may reach. */
  listTools(token: string, allowed: (server: string) => boolean): { tools: Tool[] } {
    const servers = this.#listedServers();
    const offers = servers.map((s) => (allowed(s) ? this.#access.offer(token, s) : undefined));
    const kept = this.#listings.get(token);
    if (kept && kept.offers.length === offers.length && kept.offers.every((o, i) => o === offers[i]))
      return { tools: kept.tools };
    const names = this.#namesFor(token);
    const tools: Tool[] = [];
    servers.forEach((server, i) => {
      for (const tool of offers[i]?.own ?? []) {
        const name = names.byPair.get(`${server}\0${tool.name}`);
        if (name !== undefined) tools.push(name === tool.name ? tool : { ...tool, name });
      }
    });
    this.#listings.set(token, { offers, tools });
    return { tools };
  }

  /** The server and own name of the tool `token` calls `name` (listed or not: the caller checks). */
  routeTool(token: string, name: string): Route | undefined {
    return this.#namesFor(token).routes.get(name);
  }

  /** The name `token` sees for a server's tool on /mcp. */
  nameOf(token: string, server: string, tool: string): string | undefined {
    return this.#namesFor(token).byPair.get(`${server}\0${tool}`);
  }

  #listedServers(): string[] {
    this.#servers ??= this.#upstreams.listed().map((l) => l.name);
    return this.#servers;
  }

  #namesFor(token: string): Names {
    const budget = Math.min(API_NAME_MAX, limitsOf(token).names?.budget(AGGREGATE_ENTRY) ?? API_NAME_MAX);
    let names = this.#names.get(budget);
    if (!names) {
      // Every tool the servers list, held ones too, so accepting a change never renames another.
      const pairs: { server: string; tool: string }[] = [];
      for (const { name, tools } of this.#upstreams.listed())
        for (const def of tools) pairs.push({ server: name, tool: def.name });
      const routes = new Map<string, Route>();
      const byPair = new Map<string, string>();
      for (const [exposed, pair] of aggregateNames(pairs, budget)) {
        routes.set(exposed, { server: pair.server, original: pair.tool });
        byPair.set(`${pair.server}\0${pair.tool}`, exposed);
      }
      names = { routes, byPair };
      this.#names.set(budget, names);
    }
    return names;
  }
}
