import type { Prompt, Resource, ResourceTemplate } from '@modelcontextprotocol/sdk/types.js';
import { AggregateCatalog } from './aggregate.ts';
import {
  errorResponse,
  ErrorCodes,
  resultResponse,
  type JsonRpcRequest,
  type JsonRpcResponse,
} from './json-rpc.ts';
import { aggregateNames } from '../tools/tool-names.ts';
import type { McpSession } from './mcp-sessions.ts';
import { refusal, type ToolAccess } from './tool-access.ts';
import { CALL_TOOL, DEFAULT_FOUND, DISCOVERY_TOOLS, FIND_TOOLS, MAX_FOUND } from '../tools/discovery.ts';
import type { Reply } from './server-relay.ts';
import { templateAllowed } from '../trust/tool-pins.ts';
import { literalLength, matchesTemplate } from './uri-template-match.ts';
import type { Listed, Upstream, UpstreamLookup, Upstreams } from './upstreams.ts';

/** One aggregate request: whose it is, which servers that editor may reach, and how to relay it. */
export interface AggregateRequest {
  session: McpSession;
  allowed: (server: string) => boolean;
  /** the server as this session uses it (started if idle; its own process when isolated) */
  acquire: (server: string) => Promise<UpstreamLookup>;
  /** sends the editor's request, with these params, to one server (started if idle) and gives back its answer */
  relay: (server: string, params: Record<string, unknown> | undefined) => Promise<JsonRpcResponse>;
  /** a Reply under the request's id */
  answer: (reply: Reply) => JsonRpcResponse;
  /** the editor uses discovery mode: its tools are find_tools and call_tool */
  discovery: boolean;
}

/** MCP's code for a resource no server has (spec: resources, error handling). */
const RESOURCE_NOT_FOUND = -32002;

/**
 * The aggregate /mcp endpoint: the tools and prompts of every listed server (running, idle or
 * starting: lists come from each server's last run, so listing starts nothing) as `<server>__<name>`
 * (see tool-names.ts), and their resources and resource templates with URIs unchanged — of the servers
 * the editor may reach. A resource URI listed by several servers is listed once and read from the
 * one approved first; a URI no server lists goes to the most specific matching template, of the
 * server approved first among equally specific ones (a newer or hostile server cannot take over
 * another's resources: docs/decisions/tools-and-discovery.md). Completions follow their prompt or
 * resource; logging/setLevel goes to every running server with logging (an idle one is told when it
 * next starts); subscriptions to the resource's server. A request that needs a server starts it if it
 * is idle.
 */
export class AggregateRouter {
  readonly #upstreams: Upstreams;
  readonly #access: ToolAccess;
  readonly #tools: AggregateCatalog;

  constructor(upstreams: Upstreams, access: ToolAccess) {
    this.#upstreams = upstreams;
    this.#access = access;
    this.#tools = new AggregateCatalog(upstreams, access);
  }

  /** Call when a server's tools or running state changed. */
  toolsChanged(): void {
    this.#tools.invalidate();
  }

  /** A discovery-mode editor arrived: find_tools' index is made now, not during its first search. */
  prepareDiscovery(): void {
    setImmediate(() => this.#tools.prepareIndex());
  }

  async dispatch(request: JsonRpcRequest, ctx: AggregateRequest): Promise<JsonRpcResponse> {
    const { id, params } = request;
    const { allowed, relay } = ctx;
    switch (request.method) {
      case 'tools/list':
        if (ctx.discovery) return resultResponse(id, { tools: DISCOVERY_TOOLS });
        return resultResponse(id, this.#tools.listTools(ctx.session.editor, allowed));
      case 'tools/call': {
        const name = params?.name;
        const token = ctx.session.editor;
        if (ctx.discovery && name === FIND_TOOLS.name)
          return resultResponse(id, this.#find(token, allowed, params?.arguments));
        if (ctx.discovery && name === CALL_TOOL.name) {
          const args = params?.arguments as { name?: unknown; arguments?: unknown } | undefined;
          if (typeof args?.name !== 'string')
            return resultResponse(
              id,
              toolError('call_tool needs "name": the name of a tool find_tools returned'),
            );
          if (args.arguments !== undefined && (typeof args.arguments !== 'object' || args.arguments === null))
            return resultResponse(id, toolError('call_tool\'s "arguments" must be an object'));
          const route = this.#tools.routeTool(token, args.name);
          if (!route || !allowed(route.server))
            return resultResponse(
              id,
              toolError(
                `No tool named "${args.name}": call find_tools for the names of the tools you can call`,
              ),
            );
          const refused = this.#access.check(token, route.server, route.original);
          if (refused) return resultResponse(id, toolError(refused));
          const { _meta } = params ?? {};
          return relay(route.server, {
            ...(_meta !== undefined ? { _meta } : {}),
            name: route.original,
            ...(args.arguments !== undefined ? { arguments: args.arguments } : {}),
          });
        }
        const route = typeof name === 'string' ? this.#tools.routeTool(token, name) : undefined;
        if (!route || !allowed(route.server)) return unknownName(request, 'tool', name);
        const offer = this.#access.offer(token, route.server);
        const refused = offer
          ? refusal(offer, route.server, token, route.original, name)
          : this.#access.check(token, route.server, route.original);
        if (refused) return errorResponse(id, ErrorCodes.InvalidParams, refused);
        return relay(route.server, { ...params, name: route.original });
      }
      case 'prompts/list': {
        const prompts = [...this.#prompts(allowed)]
          .filter(([, route]) => route.listed)
          .map(([name, { prompt }]) => ({ ...prompt, name }));
        return resultResponse(id, { prompts });
      }
      case 'prompts/get': {
        const name = params?.name;
        const route = typeof name === 'string' ? this.#prompts(allowed).get(name) : undefined;
        if (!route) return unknownName(request, 'prompt', name);
        const refused = this.#upstreams.refusedPrompt(route.server, route.prompt.name);
        if (refused) return errorResponse(id, ErrorCodes.InvalidParams, refused);
        return relay(route.server, { ...params, name: route.prompt.name });
      }
      case 'resources/list':
        return resultResponse(id, {
          resources: [...this.#resources(allowed).values()].map((r) => r.resource),
        });
      case 'resources/templates/list':
        return resultResponse(id, {
          resourceTemplates: this.#templates(allowed).map((t) => t.template),
        });
      case 'resources/read':
      case 'resources/subscribe':
      case 'resources/unsubscribe': {
        const uri = params?.uri;
        const server = typeof uri === 'string' ? this.#resourceOwner(uri, allowed) : undefined;
        if (!server || typeof uri !== 'string') return resourceNotFound(request, uri);
        if (request.method === 'resources/read') return relay(server, params);
        const found = await ctx.acquire(server);
        if (!found.ok) return errorResponse(id, found.code, found.message, { state: found.state });
        const own = found.upstream.relay;
        return ctx.answer(
          request.method === 'resources/subscribe'
            ? await own.subscribe(ctx.session, uri)
            : await own.unsubscribe(ctx.session, uri),
        );
      }
      case 'completion/complete': {
        const ref = params?.ref as { type?: unknown; name?: unknown; uri?: unknown } | undefined;
        if (ref?.type === 'ref/prompt' && typeof ref.name === 'string') {
          const route = this.#prompts(allowed).get(ref.name);
          if (!route) return unknownName(request, 'prompt', ref.name);
          const refused = this.#upstreams.refusedPrompt(route.server, route.prompt.name);
          if (refused) return errorResponse(id, ErrorCodes.InvalidParams, refused);
          return relay(route.server, { ...params, ref: { ...ref, name: route.prompt.name } });
        }
        if (ref?.type === 'ref/resource' && typeof ref.uri === 'string') {
          const owner =
            this.#templates(allowed).find((t) => t.template.uriTemplate === ref.uri)?.server ??
            this.#resourceOwner(ref.uri, allowed);
          if (!owner) return resourceNotFound(request, ref.uri);
          return relay(owner, params);
        }
        return errorResponse(
          id,
          ErrorCodes.InvalidParams,
          'completion/complete needs a ref/prompt or ref/resource',
        );
      }
      case 'logging/setLevel': {
        // The level is the session's (already recorded); every server with logging hears the merge.
        const replies = await Promise.all(
          this.#running(allowed)
            .filter((u) => u.client.getServerCapabilities()?.logging)
            .map(async (u) => {
              // An isolated server hears it from this session's own process, if it has one yet.
              const own = this.#upstreams.ownOf(ctx.session, u.name);
              if (own) return own.relay ? own.relay.applyLevel() : { result: {} };
              return u.relay.applyLevel();
            }),
        );
        const failed = replies.find((r) => r.error);
        return ctx.answer(failed ?? { result: {} });
      }
      default:
        return errorResponse(
          id,
          ErrorCodes.MethodNotFound,
          `Method not found: ${request.method} (the aggregate /mcp endpoint serves tools, prompts, resources, completions and logging; use /mcp/<server> for everything else)`,
        );
    }
  }

  /** find_tools: the best matches among the tools this token may call, with their input schemas. */
  #find(token: string, allowed: (server: string) => boolean, args: unknown): Record<string, unknown> {
    const { query, limit } = (typeof args === 'object' && args !== null ? args : {}) as {
      query?: unknown;
      limit?: unknown;
    };
    if (typeof query !== 'string' || query.trim() === '')
      return toolError('find_tools needs "query": what you want to do, in a few words');
    const count =
      typeof limit === 'number' && Number.isInteger(limit)
        ? Math.min(Math.max(limit, 1), MAX_FOUND)
        : DEFAULT_FOUND;
    const found = this.#tools.find(token, allowed, query, count);
    const text = found.length
      ? JSON.stringify(found, null, 1)
      : `No tool matches "${query}". Try other words (what the tool does, or the service it works with).`;
    return { content: [{ type: 'text', text }], structuredContent: { tools: found } };
  }

  /** Running servers the editor may reach, by name, so that "first" means the same server whatever the start order. */
  #running(allowed: (server: string) => boolean): Upstream[] {
    return this.#upstreams
      .running()
      .filter((u) => allowed(u.name))
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  /**
   * Every prompt by its aggregate name, with whether editors get it (`listed`: not held back by
   * pinning). Held prompts keep their route, so that getting one says why it is held.
   */
  #prompts(
    allowed: (server: string) => boolean,
  ): Map<string, { server: string; prompt: Prompt; listed: boolean }> {
    // Names are made over every server (and held prompts), so an editor's names do not depend on its
    // selection, and accepting a change renames nothing.
    const byPair = new Map<string, { server: string; prompt: Prompt; listed: boolean }>();
    for (const { name, lists, gate } of this.#upstreams.listed()) {
      for (const prompt of lists.prompts) {
        const listed = !gate?.prompts.held.has(prompt.name);
        byPair.set(`${name}\0${prompt.name}`, { server: name, prompt, listed });
      }
    }
    const names = aggregateNames(
      [...byPair.values()].map((p) => ({ server: p.server, tool: p.prompt.name })),
    );
    const routes = new Map<string, { server: string; prompt: Prompt; listed: boolean }>();
    for (const [name, pair] of names) {
      const route = byPair.get(`${pair.server}\0${pair.tool}`);
      if (route && allowed(route.server)) routes.set(name, route);
    }
    return routes;
  }

  /**
   * Every listed resource by URI, from the server that keeps it: of those that list it, the one
   * approved first (then by name). A server approved later cannot take over a URI by listing it too.
   */
  #resources(allowed: (server: string) => boolean): Map<string, { server: string; resource: Resource }> {
    const byUri = new Map<string, { server: string; resource: Resource }>();
    for (const { name, lists } of bySeniority(this.#listed(allowed)))
      for (const resource of lists.resources)
        if (!byUri.has(resource.uri)) byUri.set(resource.uri, { server: name, resource });
    return byUri;
  }

  /**
   * Every server's templates in the order they are tried: the most specific first (the most literal
   * characters: a catch-all `{+anything}` has none, so it gets only what no other template matches),
   * equally specific ones by approval age (then by name); an identical template is listed once, as its
   * oldest server's.
   */
  #templates(allowed: (server: string) => boolean): { server: string; template: ResourceTemplate }[] {
    const seen = new Set<string>();
    const templates: { server: string; template: ResourceTemplate; literal: number }[] = [];
    for (const { name, lists, gate } of bySeniority(this.#listed(allowed))) {
      for (const template of lists.resourceTemplates) {
        // a new or changed template is held back until a person accepts it: it lists and routes nothing
        if (gate && !templateAllowed(gate, template)) continue;
        if (seen.has(template.uriTemplate)) continue;
        seen.add(template.uriTemplate);
        templates.push({ server: name, template, literal: literalLength(template.uriTemplate) });
      }
    }
    // A stable sort: equally specific ones keep their seniority order.
    return templates
      .sort((a, b) => b.literal - a.literal)
      .map(({ server, template }) => ({ server, template }));
  }

  /**
   * Who answers a URI: a server that lists it exactly (the oldest, see #resources) before any
   * template, so no template captures another server's listed resource; else the first matching
   * template (see #templates).
   */
  #resourceOwner(uri: string, allowed: (server: string) => boolean): string | undefined {
    const listed = this.#resources(allowed).get(uri);
    if (listed) return listed.server;
    for (const { server, template } of this.#templates(allowed)) {
      if (matchesTemplate(template.uriTemplate, uri)) return server;
    }
    return undefined;
  }

  /** The listed servers (running, idle or starting) the editor may reach, by name. */
  #listed(allowed: (server: string) => boolean): Listed[] {
    return this.#upstreams.listed().filter((l) => allowed(l.name));
  }
}

/** Servers by approval age, the oldest first (then by name, as listed() gives them). */
function bySeniority(listed: Listed[]): Listed[] {
  return [...listed].sort(
    (a, b) => a.approvedAt - b.approvedAt || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0),
  );
}

/** A tool's failure as the model reads it (a result with isError, not a protocol error). */
function toolError(text: string): Record<string, unknown> {
  return { content: [{ type: 'text', text }], isError: true };
}

function resourceNotFound(request: JsonRpcRequest, uri: unknown): JsonRpcResponse {
  return errorResponse(
    request.id,
    RESOURCE_NOT_FOUND,
    `Resource not found: no server lists ${JSON.stringify(uri)}; call resources/list or resources/templates/list for what /mcp serves`,
    { uri },
  );
}

function unknownName(request: JsonRpcRequest, kind: 'tool' | 'prompt', name: unknown): JsonRpcResponse {
  return errorResponse(
    request.id,
    ErrorCodes.InvalidParams,
    `Unknown ${kind} "${String(name)}": call ${kind}s/list for the current names`,
  );
}
