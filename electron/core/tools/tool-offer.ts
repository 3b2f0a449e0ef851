import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { ToolFilter } from '../../../shared/schema/servers.ts';
import { compileToolFilter } from '../../../shared/tool-filter.ts';
import type { ToolGate } from '../trust/tool-pins.ts';
import { serverToolNames } from './tool-names.ts';

/** Why a tool is not offered, when it is listed by the server. */
export type Withheld = 'held-new' | 'held-changed' | 'server-filter' | 'editor-selection';

/** What one token gets of one server's tools. */
export interface ToolOffer {
  /** the tools it lists on /mcp/<server>, under the names this token's client sees there */
  tools: Tool[];
  /** the same tools under their own names (the aggregate renames them its own way) */
  own: Tool[];
  /** own names it may call */
  callable: ReadonlySet<string>;
  /** a name this client sees on /mcp/<server> → the tool's own name (every tool the server lists) */
  byExposed: ReadonlyMap<string, string>;
  /** why a listed tool is kept from this token, by own name */
  withheld: ReadonlyMap<string, Withheld>;
}

/**
 * What a client gets of one server's tools (`all`, in the server's order, held ones too): the pinned
 * ones (`gate`), minus those the server's filter turns off, minus those the editor's selection leaves
 * out, named within `budget` characters (the client's name limit; undefined: their own names).
 */
export function makeOffer(
  all: readonly Tool[],
  gate: ToolGate | undefined,
  filter: ToolFilter | undefined,
  selection: ToolFilter | undefined,
  budget: number | undefined,
): ToolOffer {
  const byFilter = compileToolFilter(filter);
  const bySelection = compileToolFilter(selection);
  // Names are made over every tool the server lists, so turning one on or off renames no other.
  const byExposed = serverToolNames(
    all.map((t) => t.name),
    budget,
  );
  const exposedOf = new Map([...byExposed].map(([exposed, own]) => [own, exposed]));
  const tools: Tool[] = [];
  const own: Tool[] = [];
  const callable = new Set<string>();
  const withheld = new Map<string, Withheld>();
  for (const tool of all) {
    const held = gate?.held.get(tool.name);
    const why: Withheld | undefined =
      held === 'new'
        ? 'held-new'
        : held === 'changed' || (gate !== undefined && !gate.callable.has(tool.name))
          ? 'held-changed'
          : !byFilter(tool.name)
            ? 'server-filter'
            : !bySelection(tool.name)
              ? 'editor-selection'
              : undefined;
    if (why) {
      withheld.set(tool.name, why);
      continue;
    }
    if (callable.has(tool.name)) continue; // a server that lists a name twice: once
    callable.add(tool.name);
    own.push(tool);
    const exposed = exposedOf.get(tool.name) ?? tool.name;
    tools.push(exposed === tool.name ? tool : { ...tool, name: exposed });
  }
  return { tools, own, callable, byExposed, withheld };
}
