import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { displayText } from '../../../shared/display-text.ts';
import type {
  EditorToolsView,
  EditorServerTools,
  ToolCost,
  ToolWarning,
} from '../../../shared/editor-tools.ts';
import { EDITOR_LABELS, type EditorId } from '../../../shared/editors.ts';
import type { ToolFilter } from '../../../shared/schema/servers.ts';
import type { EditorSettings } from '../../../shared/schema/state.ts';
import { limitsOf, NEAR_LIMIT } from '../../../shared/tool-limits.ts';
import type { ToolGate } from '../trust/tool-pins.ts';
import { DISCOVERY_TOOLS } from './discovery.ts';
import { toolTokens } from './token-cost.ts';
import { makeOffer } from './tool-offer.ts';

/** Where a server's current tools are known from: its pin gate, else its last run's lists (the core). */
export interface ToolListSource {
  readonly tools: { toolGate(server: string): ToolGate | undefined };
  readonly lifecycle: { lists(server: string): { tools: readonly Tool[] } | undefined };
}

/** A server's tools now, held-back ones too, with its gate; undefined while it has not listed them. */
export function listingOf(
  source: ToolListSource,
  server: string,
): { all: readonly Tool[]; gate: ToolGate | undefined } | undefined {
  const gate = source.tools.toolGate(server);
  if (gate) return { all: gate.tools, gate };
  const tools = source.lifecycle.lists(server)?.tools;
  return tools ? { all: tools, gate: undefined } : undefined;
}

/** What the view of an editor's tools is made from. */
export interface EditorToolFacts {
  /** the servers the editor gets (approved, enabled, selected for it), by name */
  servers: readonly string[];
  /** a server's tools now, held-back ones too, and its pin gate; undefined: not listed yet */
  listing(server: string): { all: readonly Tool[]; gate: ToolGate | undefined } | undefined;
  /** a server's own `tools` filter in servers.json */
  filter(server: string): ToolFilter | undefined;
  settings: EditorSettings;
  /** the tools (own names) the editor called in the last hour, by server */
  called: ReadonlyMap<string, ReadonlySet<string>>;
}

/**
 * What an editor gets of tools and what it costs: per server, each tool on or off and why; counts and
 * estimated tokens with and without each feature (servers' filters, its own selection, discovery
 * mode); its client's known limits with a warning before one is crossed. The same offers the bridge
 * enforces (tools/tool-offer.ts), so what is shown is what the editor gets.
 */
export function editorToolsView(editor: EditorId, facts: EditorToolFacts): EditorToolsView {
  const limits = limitsOf(editor);
  const discovery = facts.settings.discovery === true;
  const everything = cost();
  const serverFilters = cost();
  const selection = cost();
  let shortened = 0;
  let calledLastHour = 0;
  const unknown: string[] = [];
  const servers: EditorServerTools[] = [];
  for (const server of facts.servers) {
    const listing = facts.listing(server);
    const chosen = facts.settings.tools?.[server];
    if (!listing) {
      unknown.push(server);
      servers.push({ server, known: false, ...(chosen ? { selection: chosen } : {}), tools: [] });
      continue;
    }
    const filter = facts.filter(server);
    const pinned = makeOffer(listing.all, listing.gate, undefined, undefined, undefined);
    const filtered = makeOffer(listing.all, listing.gate, filter, undefined, undefined);
    const offer = makeOffer(listing.all, listing.gate, filter, chosen, limits.names?.budget(server));
    const exposedOf = new Map([...offer.byExposed].map(([exposed, own]) => [own, exposed]));
    const called = facts.called.get(server) ?? new Set<string>();
    add(everything, pinned.own);
    add(serverFilters, filtered.own);
    add(selection, offer.own);
    const tools = listing.all.map((tool) => {
      const exposed = exposedOf.get(tool.name);
      const on = offer.callable.has(tool.name);
      if (on && exposed !== undefined && exposed !== tool.name) shortened++;
      if (called.has(tool.name)) calledLastHour++;
      const why = offer.withheld.get(tool.name);
      return {
        name: displayText(tool.name),
        ...(exposed !== undefined && exposed !== tool.name ? { exposed } : {}),
        on,
        ...(why ? { why } : {}),
        tokens: toolTokens(tool),
        called: called.has(tool.name),
      };
    });
    servers.push({ server, known: true, ...(chosen ? { selection: chosen } : {}), tools });
  }
  const discoveryCost = cost();
  add(discoveryCost, DISCOVERY_TOOLS);
  const current = discovery ? discoveryCost : selection;
  const label = EDITOR_LABELS[editor];
  const warnings: ToolWarning[] = [];
  const limit = limits.tools;
  if (limit && current.tools > limit.count) {
    warnings.push({
      level: 'over',
      message: `${label} gets ${current.tools} tools, more than ${limit.hard ? 'its limit of' : 'the'} ${limit.count}${limit.hard ? '' : ' it handles well'}: ${limit.what}. Turn tools off below, or use discovery mode.`,
    });
  } else if (limit && current.tools >= Math.ceil(limit.count * NEAR_LIMIT)) {
    warnings.push({
      level: 'near',
      message: `${label} gets ${current.tools} of the ${limit.count} tools it ${limit.hard ? 'can take' : 'handles well'}: ${limit.what}.`,
    });
  }
  if (!discovery && shortened > 0 && limits.names) {
    warnings.push({
      level: 'info',
      message: `${shortened} tool name${shortened === 1 ? ' is' : 's are'} shortened for ${label} (${limits.names.what}); each still calls its own tool.`,
    });
  }
  if (unknown.length > 0) {
    warnings.push({
      level: 'info',
      message: `Not counted yet: ${unknown.join(', ')} (${unknown.length === 1 ? 'it has' : 'they have'} not listed tools since approval).`,
    });
  }
  return {
    editor,
    label,
    discovery,
    current,
    costs: { everything, serverFilters, selection, discovery: discoveryCost },
    limits: {
      ...(limit
        ? { tools: { count: limit.count, hard: limit.hard, what: limit.what, source: limit.source } }
        : {}),
      ...(limits.names ? { names: { what: limits.names.what, source: limits.names.source } } : {}),
    },
    warnings,
    shortened: discovery ? 0 : shortened,
    calledLastHour,
    servers,
  };
}

function cost(): ToolCost {
  return { tools: 0, tokens: 0 };
}

function add(into: ToolCost, tools: readonly Tool[]): void {
  into.tools += tools.length;
  for (const tool of tools) into.tokens += toolTokens(tool);
}
