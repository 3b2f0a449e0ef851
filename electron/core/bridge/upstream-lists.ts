import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Prompt, Resource, ResourceTemplate } from '@modelcontextprotocol/sdk/types.js';
import type { Upstream } from './upstreams.ts';

/**
 * How long the aggregate waits for one server's list: one slow server must not hold up everyone's
 * prompts/list or resources/list for the whole per-request timeout.
 */
const LIST_TIMEOUT_MS = 10_000;
/** A server that keeps handing out cursors is cut off here rather than listed forever. */
const MAX_PAGES = 100;

/** One kind of list, per server, for the server's current connection. */
export class ListCache<T> {
  readonly #fetch: (client: Client) => Promise<T[]>;
  readonly #byServer = new Map<string, { client: Client; list: Promise<T[]> }>();

  constructor(fetch: (client: Client) => Promise<T[]>) {
    this.#fetch = fetch;
  }

  get(upstream: Upstream): Promise<T[]> {
    const hit = this.#byServer.get(upstream.name);
    if (hit?.client === upstream.client) return hit.list;
    const entry = { client: upstream.client, list: this.#fetch(upstream.client) };
    this.#byServer.set(upstream.name, entry);
    entry.list.catch(() => {
      if (this.#byServer.get(upstream.name) === entry) this.#byServer.delete(upstream.name);
    });
    return entry.list;
  }

  /** The server said this list changed: fetch it again next time. */
  invalidate(server: string): void {
    this.#byServer.delete(server);
  }
}

/**
 * Each running server's prompts, resources and resource templates, for the aggregate /mcp endpoint.
 * Fetched when first asked for and kept until the server says the list changed or reconnects (a new
 * client connection starts afresh). A failed fetch is not kept, so the next call tries again.
 */
export class UpstreamLists {
  readonly prompts = new ListCache<Prompt>(async (client) => {
    if (!client.getServerCapabilities()?.prompts) return [];
    return collect(async (cursor) => {
      const page = await client.listPrompts(cursor ? { cursor } : undefined, { timeout: LIST_TIMEOUT_MS });
      return { items: page.prompts, next: page.nextCursor };
    });
  });

  readonly resources = new ListCache<Resource>(async (client) => {
    if (!client.getServerCapabilities()?.resources) return [];
    return collect(async (cursor) => {
      const page = await client.listResources(cursor ? { cursor } : undefined, { timeout: LIST_TIMEOUT_MS });
      return { items: page.resources, next: page.nextCursor };
    });
  });

  readonly templates = new ListCache<ResourceTemplate>(async (client) => {
    if (!client.getServerCapabilities()?.resources) return [];
    return collect(async (cursor) => {
      const page = await client.listResourceTemplates(cursor ? { cursor } : undefined, {
        timeout: LIST_TIMEOUT_MS,
      });
      return { items: page.resourceTemplates, next: page.nextCursor };
    });
  });
}

async function collect<T>(
  page: (cursor: string | undefined) => Promise<{ items: T[]; next: string | undefined }>,
): Promise<T[]> {
  const items: T[] = [];
  const seen = new Set<string>();
  let cursor: string | undefined;
  for (let i = 0; i < MAX_PAGES; i++) {
    const result = await page(cursor);
    items.push(...result.items);
    cursor = result.next;
    if (cursor === undefined || seen.has(cursor)) break;
    seen.add(cursor);
  }
  return items;
}
