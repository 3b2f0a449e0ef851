import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { describeError } from '../errors.ts';
import { LIST_METHODS, LIST_PAGE_SCHEMAS, type ListKind, type ServerLists } from '../lists/server-lists.ts';
import { SDK_TIMEOUT_MS, type Attempt } from './attempt.ts';
import type { Refetched } from './list-refresh.ts';

const MAX_LIST_PAGES = 1_000;

export interface RunListsOptions {
  attempt: Pick<Attempt, 'current' | 'note' | 'request'>;
  client: Client;
  /** the server's name, for its serverInfo when it gave none */
  server: string;
  /** how long one page may take */
  timeoutMs: number;
  /** whether the server runs now (lists fetched for a run that ended are dropped) */
  running(): boolean;
  /** the tools the runner holds for this run, when known */
  knownTools(): Tool[] | undefined;
  /** a tool list came in (the first, or one that changed) */
  toolsListed(tools: Tool[]): void;
  /** everything the server listed on this run, whole (again after a list changed) */
  listed(lists: ServerLists): void;
}

/**
 * What the server lists on one run (tools, prompts, resources, resource templates): every page of
 * each after initialize, and one list again when the server says it changed. Only a complete set is
 * given out: a list that could not be fetched would otherwise be remembered as empty.
 */
export class RunLists {
  readonly #options: RunListsOptions;
  /** per list: a counter, so that only the newest fetch of it lands */
  readonly #seq: Record<ListKind, number> = { tools: 0, prompts: 0, resources: 0, resourceTemplates: 0 };
  /** this run's lists, once all four were fetched after initialize */
  #lists: ServerLists | null = null;

  constructor(options: RunListsOptions) {
    this.#options = options;
  }

  /** All four lists, after initialize. */
  async fetchAll(): Promise<void> {
    const { attempt, client } = this.#options;
    // Tools first, on their own: a request that started the server waits for them (pinning), and
    // should not queue behind the other lists at the server.
    const tools = await this.#list('tools');
    if (!attempt.current || !this.#options.running()) return;
    if (tools !== undefined) this.#options.toolsListed(tools as Tool[]);
    // The waiting request goes out before the other lists do.
    await new Promise((resolve) => setImmediate(resolve));
    const rest = ['prompts', 'resources', 'resourceTemplates'] as const;
    const results = await Promise.all(rest.map((kind) => this.#list(kind)));
    if (!attempt.current || !this.#options.running() || tools === undefined) return;
    const lists = this.#snapshot(client);
    lists.tools = tools as Tool[];
    for (const [i, kind] of rest.entries()) {
      const items = results[i];
      if (items === undefined) return; // #list noted why: only a complete set is kept
      (lists[kind] as unknown[]) = items;
    }
    this.#lists = lists;
    this.#options.listed(lists);
  }

  /** One list again, after the server said it changed: whether it did. */
  async refresh(kind: ListKind): Promise<Refetched> {
    const { attempt } = this.#options;
    const seq = ++this.#seq[kind];
    const items = await this.#list(kind);
    if (items === undefined || !attempt.current || seq !== this.#seq[kind]) return 'failed';
    if (!this.#options.running()) return 'failed';
    const lists = this.#lists;
    const before = lists ? lists[kind] : kind === 'tools' ? this.#options.knownTools() : undefined;
    const changed = before === undefined || JSON.stringify(before) !== JSON.stringify(items);
    if (!changed) return 'same';
    if (kind === 'tools') this.#options.toolsListed(items as Tool[]);
    if (lists === null) return 'changed'; // the first fetch was incomplete: nothing whole to tell
    const next: ServerLists = { ...lists, [kind]: items };
    this.#lists = next;
    this.#options.listed(next);
    return 'changed';
  }

  /** What the server said in initialize, with empty lists. */
  #snapshot(client: Client): ServerLists {
    return {
      capabilities: client.getServerCapabilities() ?? {},
      serverInfo: client.getServerVersion() ?? { name: this.#options.server, version: 'unknown' },
      instructions: client.getInstructions(),
      tools: [],
      prompts: [],
      resources: [],
      resourceTemplates: [],
    };
  }

  /**
   * Every page of one list (empty when the server has no such capability); undefined when it failed
   * (noted in the log). Items are kept as the server sent them.
   */
  async #list(kind: ListKind): Promise<unknown[] | undefined> {
    const { attempt, client } = this.#options;
    const capabilities = client.getServerCapabilities();
    const offered = kind === 'resourceTemplates' ? capabilities?.resources : capabilities?.[kind];
    if (offered === undefined) return [];
    const { method, field } = LIST_METHODS[kind];
    const items: unknown[] = [];
    try {
      const seen = new Set<string>();
      let cursor: string | undefined;
      for (let page = 0; page < MAX_LIST_PAGES; page++) {
        const params = cursor === undefined ? undefined : { cursor };
        const result = await attempt.request(
          this.#options.timeoutMs,
          new Error(`${method} timed out`),
          (signal) =>
            client.request(
              { method, ...(params ? { params } : {}) } as Parameters<Client['request']>[0],
              LIST_PAGE_SCHEMAS[kind],
              { signal, timeout: SDK_TIMEOUT_MS },
            ),
        );
        items.push(...((result as Record<string, unknown>)[field] as unknown[]));
        cursor = result.nextCursor;
        if (cursor === undefined || seen.has(cursor)) break;
        seen.add(cursor);
      }
    } catch (err) {
      if (attempt.current) attempt.note(`${method} failed: ${describeError(err)}`, 'warn');
      return undefined;
    }
    return items;
  }
}
