import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { EDITOR_LABELS, type EditorId } from '../../../shared/editors.ts';
import type { ToolFilter } from '../../../shared/schema/servers.ts';
import { compileToolFilter } from '../../../shared/tool-filter.ts';
import { limitsOf } from '../../../shared/tool-limits.ts';
import type { ToolGate } from '../trust/tool-pins.ts';
import { makeOffer, type ToolOffer, type Withheld } from '../tools/tool-offer.ts';

export type { ToolOffer } from '../tools/tool-offer.ts';

/** What the bridge needs to know to say which tools a token gets of a server. */
export interface ToolAccessSources {
  /**
   * The server's tools now, in its own order, held-back ones too (`all`), and its pin gate (which of
   * them editors may have); undefined while they are not known.
   */
  listing(server: string): { all: readonly Tool[]; gate: ToolGate | undefined } | undefined;
  /** the server's own `tools` filter in servers.json (the same object until the file changes) */
  serverFilter(server: string): ToolFilter | undefined;
  /** the token's editor's selection for the server (the same object until its settings change) */
  selection(token: string, server: string): ToolFilter | undefined;
}

interface Cached {
  source: object;
  filter: ToolFilter | undefined;
  selection: ToolFilter | undefined;
  offer: ToolOffer;
}

/**
 * Which tools each bridge token gets of each server: the pinned ones (trust/tool-pins.ts), minus those
 * the server's `tools` filter in servers.json turns off, minus those its editor's selection leaves
 * out; on /mcp/<server> under names its client can use (tool-names.ts serverToolNames, for clients
 * with a name limit). One step of the tools/list and tools/call paths, apart from pinning.
 *
 * Worked out once per token and server and kept until the server's tools, its filter or the editor's
 * selection change (each a new object, so a lookup compares three references): a call's check is a
 * map lookup.
 */
export class ToolAccess {
  readonly #sources: ToolAccessSources;
  readonly #cache = new Map<string, Map<string, Cached>>();

  constructor(sources: ToolAccessSources) {
    this.#sources = sources;
  }

  /** What `token` gets of `server` now; undefined while the server's tools are not known. */
  offer(token: string, server: string): ToolOffer | undefined {
    const listing = this.#sources.listing(server);
    if (!listing) return undefined;
    const source = listing.gate ?? listing.all;
    const filter = this.#sources.serverFilter(server);
    const selection = this.#sources.selection(token, server);
    let byServer = this.#cache.get(token);
    if (!byServer) this.#cache.set(token, (byServer = new Map()));
    const cached = byServer.get(server);
    if (cached?.source === source && cached.filter === filter && cached.selection === selection)
      return cached.offer;
    const offer = makeOffer(listing.all, listing.gate, filter, selection, budgetOf(token, server));
    byServer.set(server, { source, filter, selection, offer });
    return offer;
  }

  /** The same for a list the server just gave (before its lists are kept): not cached. */
  offerFrom(token: string, server: string, tools: readonly Tool[], gate: ToolGate | undefined): ToolOffer {
    return makeOffer(
      tools,
      gate,
      this.#sources.serverFilter(server),
      this.#sources.selection(token, server),
      budgetOf(token, server),
    );
  }

  /**
   * Why `token` may not call the server's tool `own` (its own name) now; undefined: it may. While the
   * server's tools are not known only the filters can say no (the server answers for names it lacks).
   */
  check(token: string, server: string, own: string): string | undefined {
    const offer = this.offer(token, server);
    if (offer) return refusal(offer, server, token, own, own);
    if (!compileToolFilter(this.#sources.serverFilter(server))(own))
      return withheldWords('server-filter', server, token, own);
    if (!compileToolFilter(this.#sources.selection(token, server))(own))
      return withheldWords('editor-selection', server, token, own);
    return undefined;
  }

  /** Forgets what was worked out for a server (it left) or everything. */
  forget(server?: string): void {
    if (server === undefined) this.#cache.clear();
    else for (const byServer of this.#cache.values()) byServer.delete(server);
  }
}

/**
 * Why `token` may not call the tool its client calls `name` on /mcp/<server> (undefined: it may), in
 * words an AI agent reads: the person decides, never a command to run. `own` is the tool's own name.
 */
export function refusal(
  offer: ToolOffer,
  server: string,
  token: string,
  own: string | undefined,
  name: unknown,
): string | undefined {
  if (own !== undefined && offer.callable.has(own)) return undefined;
  return withheldWords(own === undefined ? undefined : offer.withheld.get(own), server, token, name);
}

function withheldWords(why: Withheld | undefined, server: string, token: string, name: unknown): string {
  const tool = JSON.stringify(String(name));
  switch (why) {
    case 'held-new':
      return `Tool ${tool} of MCP server "${server}" is new since its tools were approved; Switchboard holds it back until the person accepts the change in Switchboard`;
    case 'held-changed':
      return `Tool ${tool} of MCP server "${server}" changed since its tools were approved; Switchboard holds it back until the person accepts the change in Switchboard`;
    case 'server-filter':
      return `Tool ${tool} of MCP server "${server}" is turned off in Switchboard (its "tools" in servers.json); the person can turn it on in Switchboard`;
    case 'editor-selection':
      return `Tool ${tool} of MCP server "${server}" is not among the tools Switchboard gives ${clientName(token)}; the person can select it for ${clientName(token)} in Switchboard`;
    default:
      return `Unknown tool ${tool}: MCP server "${server}" does not list it; call tools/list for the current names`;
  }
}

function clientName(token: string): string {
  return (EDITOR_LABELS as Record<string, string | undefined>)[token as EditorId] ?? `token "${token}"`;
}

/** The longest tool name `token`'s client can use on /mcp/<server> (undefined: no known limit). */
function budgetOf(token: string, server: string): number | undefined {
  return limitsOf(token).names?.budget(server);
}
