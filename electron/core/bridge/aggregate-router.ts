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
import { UpstreamLists } from './upstream-lists.ts';
import type { Upstream, Upstreams } from './upstreams.ts';

/** Sends the editor's request, with these params, to one server and gives back its answer. */
export type Relay = (
  upstream: Upstream,
  params: Record<string, unknown> | undefined,
) => Promise<JsonRpcResponse>;

/** MCP's code for a resource no server has (spec: resources, error handling). */
const RESOURCE_NOT_FOUND = -32002;

/**
 * The aggregate /mcp endpoint: every running server's tools and prompts as `<server>__<name>` (see
 * tool-names.ts), and their resources and resource templates with URIs unchanged. A resource URI
 * listed by several servers is listed once and read from the first of them by server name; a URI
 * no server lists goes to the first server (by name) with a matching template.
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

  async dispatch(request: JsonRpcRequest, relay: Relay): Promise<JsonRpcResponse> {
    const { id, params } = request;
    switch (request.method) {
      case 'tools/list':
        return resultResponse(id, this.#tools.listTools());
      case 'tools/call': {
        const name = params?.name;
        const route = typeof name === 'string' ? this.#tools.routeTool(name) : undefined;
        if (!route) return unknownName(request, 'tool', name);
        return relay(route.upstream, { ...params, name: route.original });
      }
      case 'prompts/list': {
        const prompts = [...(await this.#prompts())].map(([name, { prompt }]) => ({ ...prompt, name }));
        return resultResponse(id, { prompts });
      }
      case 'prompts/get': {
        const name = params?.name;
        const route = typeof name === 'string' ? (await this.#prompts()).get(name) : undefined;
        if (!route) return unknownName(request, 'prompt', name);
        return relay(route.upstream, { ...params, name: route.prompt.name });
      }
      case 'resources/list':
        return resultResponse(id, {
          resources: [...(await this.#resources()).values()].map((r) => r.resource),
        });
      case 'resources/templates/list':
        return resultResponse(id, {
          resourceTemplates: (await this.#templates()).map((t) => t.template),
        });
      case 'resources/read': {
        const uri = params?.uri;
        const upstream = typeof uri === 'string' ? await this.#resourceOwner(uri) : undefined;
        if (!upstream) {
          return errorResponse(
            id,
            RESOURCE_NOT_FOUND,
            `Resource not found: no running server lists ${JSON.stringify(uri)}; call resources/list or resources/templates/list for what /mcp serves`,
            { uri },
          );
        }
        return relay(upstream, params);
      }
      default:
        return errorResponse(
          id,
          ErrorCodes.MethodNotFound,
          `Method not found: ${request.method} (the aggregate /mcp endpoint serves tools, prompts and resources; use /mcp/<server> for everything else)`,
        );
    }
  }

  /** Running servers by name, so that "first" means the same server whatever the start order. */
  #running(): Upstream[] {
    return this.#upstreams.running().sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  async #prompts(): Promise<Map<string, { upstream: Upstream; prompt: Prompt }>> {
    const listed = await this.#each((u) => this.lists.prompts.get(u));
    const byPair = new Map<string, { upstream: Upstream; prompt: Prompt }>();
    for (const { upstream, items } of listed)
      for (const prompt of items) byPair.set(`${upstream.name}\0${prompt.name}`, { upstream, prompt });
    const names = aggregateNames(
      [...byPair.values()].map((p) => ({ server: p.upstream.name, tool: p.prompt.name })),
    );
    const routes = new Map<string, { upstream: Upstream; prompt: Prompt }>();
    for (const [name, pair] of names) {
      const route = byPair.get(`${pair.server}\0${pair.tool}`);
      if (route) routes.set(name, route);
    }
    return routes;
  }

  /** Every listed resource by URI, from the first server (by name) that lists it. */
  async #resources(): Promise<Map<string, { upstream: Upstream; resource: Resource }>> {
    const byUri = new Map<string, { upstream: Upstream; resource: Resource }>();
    for (const { upstream, items } of await this.#each((u) => this.lists.resources.get(u)))
      for (const resource of items)
        if (!byUri.has(resource.uri)) byUri.set(resource.uri, { upstream, resource });
    return byUri;
  }

  /** Every server's templates, in server-name order; an identical template is listed once. */
  async #templates(): Promise<{ upstream: Upstream; template: ResourceTemplate }[]> {
    const seen = new Set<string>();
    const templates: { upstream: Upstream; template: ResourceTemplate }[] = [];
    for (const { upstream, items } of await this.#each((u) => this.lists.templates.get(u))) {
      for (const template of items) {
        if (seen.has(template.uriTemplate)) continue;
        seen.add(template.uriTemplate);
        templates.push({ upstream, template });
      }
    }
    return templates;
  }

  async #resourceOwner(uri: string): Promise<Upstream | undefined> {
    const listed = (await this.#resources()).get(uri);
    if (listed) return listed.upstream;
    for (const { upstream, template } of await this.#templates()) {
      if (matches(template.uriTemplate, uri)) return upstream;
    }
    return undefined;
  }

  /**
   * One list from every running server, fetched in parallel. A server that cannot answer is left out
   * of this answer (its tools still work) rather than failing the whole list for every editor.
   */
  async #each<T>(list: (upstream: Upstream) => Promise<T[]>): Promise<{ upstream: Upstream; items: T[] }[]> {
    const running = this.#running();
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

function unknownName(request: JsonRpcRequest, kind: 'tool' | 'prompt', name: unknown): JsonRpcResponse {
  return errorResponse(
    request.id,
    ErrorCodes.InvalidParams,
    `Unknown ${kind} "${String(name)}": call ${kind}s/list for the current names`,
  );
}
