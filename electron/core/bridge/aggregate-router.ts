import { UriTemplate } from '@modelcontextprotocol/sdk/shared/uriTemplate.js';
import type { Prompt, Resource, ResourceTemplate } from '@modelcontextprotocol/sdk/types.js';
import { AggregateCatalog } from './aggregate.ts';
import {
  errorResponse,
  ErrorCodes,
  resultResponse,
  type JsonRpcRequest,
  type JsonRpcResponse,
} from './json-rpc.ts';
import { aggregateNames } from './tool-names.ts';
import type { McpSession } from './mcp-sessions.ts';
import type { Reply } from './server-relay.ts';
import { UpstreamLists } from './upstream-lists.ts';
import type { Upstream, UpstreamLookup, Upstreams } from './upstreams.ts';

/** One aggregate request: whose it is, which servers that editor may reach, and how to relay it. */
export interface AggregateRequest {
  session: McpSession;
  allowed: (server: string) => boolean;
  /** the server as this session uses it: its own process when the server is isolated */
  own: (upstream: Upstream) => Promise<UpstreamLookup>;
  /** sends the editor's request, with these params, to one server and gives back its answer */
  relay: (upstream: Upstream, params: Record<string, unknown> | undefined) => Promise<JsonRpcResponse>;
  /** a Reply under the request's id */
  answer: (reply: Reply) => JsonRpcResponse;
}

/** MCP's code for a resource no server has (spec: resources, error handling). */
const RESOURCE_NOT_FOUND = -32002;

/**
 * The aggregate /mcp endpoint: every running server's tools and prompts as `<server>__<name>` (see
 * tool-names.ts), and their resources and resource templates with URIs unchanged — of the servers the
 * editor may reach. A resource URI listed by several servers is listed once and read from the first
 * of them by server name; a URI no server lists goes to the first server (by name) with a matching
 * template. Completions follow their prompt or resource; logging/setLevel goes to every server with
 * logging; subscriptions to the resource's server.
 */
export class AggregateRouter {
  readonly #upstreams: Upstreams;
  readonly #tools: AggregateCatalog;
  readonly lists = new UpstreamLists();

  constructor(upstreams: Upstreams) {
    this.#upstreams = upstreams;
    this.#tools = new AggregateCatalog(upstreams);
  }

  /** Call when a server's tools or running state changed. */
  toolsChanged(): void {
    this.#tools.invalidate();
  }

  async dispatch(request: JsonRpcRequest, ctx: AggregateRequest): Promise<JsonRpcResponse> {
    const { id, params } = request;
    const { allowed } = ctx;
    const relay = async (upstream: Upstream, relayed: Record<string, unknown> | undefined) => {
      const found = await ctx.own(upstream);
      if (!found.ok) return errorResponse(id, found.code, found.message, { state: found.state });
      return ctx.relay(found.upstream, relayed);
    };
    switch (request.method) {
      case 'tools/list':
        return resultResponse(id, this.#tools.listTools(allowed));
      case 'tools/call': {
        const name = params?.name;
        const route = typeof name === 'string' ? this.#tools.routeTool(name) : undefined;
        if (!route || !allowed(route.upstream.name)) return unknownName(request, 'tool', name);
        return relay(route.upstream, { ...params, name: route.original });
      }
      case 'prompts/list': {
        const prompts = [...(await this.#prompts(allowed))].map(([name, { prompt }]) => ({
          ...prompt,
          name,
        }));
        return resultResponse(id, { prompts });
      }
      case 'prompts/get': {
        const name = params?.name;
        const route = typeof name === 'string' ? (await this.#prompts(allowed)).get(name) : undefined;
        if (!route) return unknownName(request, 'prompt', name);
        return relay(route.upstream, { ...params, name: route.prompt.name });
      }
      case 'resources/list':
        return resultResponse(id, {
          resources: [...(await this.#resources(allowed)).values()].map((r) => r.resource),
        });
      case 'resources/templates/list':
        return resultResponse(id, {
          resourceTemplates: (await this.#templates(allowed)).map((t) => t.template),
        });
      case 'resources/read':
      case 'resources/subscribe':
      case 'resources/unsubscribe': {
        const uri = params?.uri;
        const upstream = typeof uri === 'string' ? await this.#resourceOwner(uri, allowed) : undefined;
        if (!upstream || typeof uri !== 'string') return resourceNotFound(request, uri);
        if (request.method === 'resources/read') return relay(upstream, params);
        const found = await ctx.own(upstream);
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
          const route = (await this.#prompts(allowed)).get(ref.name);
          if (!route) return unknownName(request, 'prompt', ref.name);
          return relay(route.upstream, { ...params, ref: { ...ref, name: route.prompt.name } });
        }
        if (ref?.type === 'ref/resource' && typeof ref.uri === 'string') {
          const templates = await this.#templates(allowed);
          const owner =
            templates.find((t) => t.template.uriTemplate === ref.uri)?.upstream ??
            (await this.#resourceOwner(ref.uri, allowed));
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
              const own = ctx.session.isolates.get(u.name);
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

  /** Running servers the editor may reach, by name, so that "first" means the same server whatever the start order. */
  #running(allowed: (server: string) => boolean): Upstream[] {
    return this.#upstreams
      .running()
      .filter((u) => allowed(u.name))
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  async #prompts(
    allowed: (server: string) => boolean,
  ): Promise<Map<string, { upstream: Upstream; prompt: Prompt }>> {
    // Names are made over every server, so an editor's names do not depend on its selection.
    const listed = await this.#each(
      (u) => this.lists.prompts.get(u),
      () => true,
    );
    const byPair = new Map<string, { upstream: Upstream; prompt: Prompt }>();
    for (const { upstream, items } of listed)
      for (const prompt of items) byPair.set(`${upstream.name}\0${prompt.name}`, { upstream, prompt });
    const names = aggregateNames(
      [...byPair.values()].map((p) => ({ server: p.upstream.name, tool: p.prompt.name })),
    );
    const routes = new Map<string, { upstream: Upstream; prompt: Prompt }>();
    for (const [name, pair] of names) {
      const route = byPair.get(`${pair.server}\0${pair.tool}`);
      if (route && allowed(route.upstream.name)) routes.set(name, route);
    }
    return routes;
  }

  /** Every listed resource by URI, from the first server (by name) that lists it. */
  async #resources(
    allowed: (server: string) => boolean,
  ): Promise<Map<string, { upstream: Upstream; resource: Resource }>> {
    const byUri = new Map<string, { upstream: Upstream; resource: Resource }>();
    for (const { upstream, items } of await this.#each((u) => this.lists.resources.get(u), allowed))
      for (const resource of items)
        if (!byUri.has(resource.uri)) byUri.set(resource.uri, { upstream, resource });
    return byUri;
  }

  /** Every server's templates, in server-name order; an identical template is listed once. */
  async #templates(
    allowed: (server: string) => boolean,
  ): Promise<{ upstream: Upstream; template: ResourceTemplate }[]> {
    const seen = new Set<string>();
    const templates: { upstream: Upstream; template: ResourceTemplate }[] = [];
    for (const { upstream, items } of await this.#each((u) => this.lists.templates.get(u), allowed)) {
      for (const template of items) {
        if (seen.has(template.uriTemplate)) continue;
        seen.add(template.uriTemplate);
        templates.push({ upstream, template });
      }
    }
    return templates;
  }

  async #resourceOwner(uri: string, allowed: (server: string) => boolean): Promise<Upstream | undefined> {
    const listed = (await this.#resources(allowed)).get(uri);
    if (listed) return listed.upstream;
    for (const { upstream, template } of await this.#templates(allowed)) {
      if (matches(template.uriTemplate, uri)) return upstream;
    }
    return undefined;
  }

  /**
   * One list from every running server, fetched in parallel. A server that cannot answer is left out
   * of this answer (its tools still work) rather than failing the whole list for every editor.
   */
  async #each<T>(
    list: (upstream: Upstream) => Promise<T[]>,
    allowed: (server: string) => boolean,
  ): Promise<{ upstream: Upstream; items: T[] }[]> {
    const running = this.#running(allowed);
    const lists = await Promise.all(running.map((u) => list(u).catch((): T[] => [])));
    return running.map((upstream, i) => ({ upstream, items: lists[i] ?? [] }));
  }
}

function matches(template: string, uri: string): boolean {
  try {
    return new UriTemplate(template).match(uri) !== null;
  } catch {
    return false; // a template the SDK cannot parse matches nothing
  }
}

function resourceNotFound(request: JsonRpcRequest, uri: unknown): JsonRpcResponse {
  return errorResponse(
    request.id,
    RESOURCE_NOT_FOUND,
    `Resource not found: no running server lists ${JSON.stringify(uri)}; call resources/list or resources/templates/list for what /mcp serves`,
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
