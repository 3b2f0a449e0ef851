// Tool budget: discovery mode's search quality and speed, and what an editor's tool list costs it,
// on the real tool lists of 18 MCP servers from npm (bench/tool-lists/, recorded by capture.ts there).
//
//   node bench/tools.ts [--runs N] [--recall-only]
//
// - recall@5 (and @1) of find_tools over the 230 real tools for the query set in bench/tool-queries.json
//   (written for this bench: a task in a few words and the tools that do it);
// - find_tools latency over 2,000+ tools (the real lists repeated under other server names), through
//   the bridge's own code (AggregateCatalog.find: index, per-token offers, names), HTTP aside; and the
//   aggregate tools/list of that many tools for one token, cold and warm;
// - an editor's (Cursor's) tool list in tools and estimated tokens: every tool, with servers' filters,
//   with its own selection too, and in discovery mode; and the estimator (JSON bytes / 4) against a
//   real tokenizer (o200k_base, gpt-tokenizer) on the same tools.
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { readdirSync, readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { encode } from 'gpt-tokenizer/encoding/o200k_base';
import { AggregateCatalog } from '../electron/core/bridge/aggregate.ts';
import { ToolAccess } from '../electron/core/bridge/tool-access.ts';
import type { Listed, Upstreams } from '../electron/core/bridge/upstreams.ts';
import { editorToolsView } from '../electron/core/tools/editor-tools.ts';
import { toolTokens } from '../electron/core/tools/token-cost.ts';
import type { ServerLists } from '../electron/core/lists/server-lists.ts';
import type { ToolFilter } from '../shared/schema/servers.ts';
import { EditorSettingsSchema } from '../shared/schema/state.ts';
import { benchArgs, finish, machineInfo, medianFigure, type Figure } from './lib.ts';

const { values } = parseArgs({
  args: benchArgs(),
  options: {
    runs: { type: 'string', default: '20' },
    quick: { type: 'boolean', default: false },
    // only the search-quality figures (seconds, not minutes)
    'recall-only': { type: 'boolean', default: false },
  },
});
const runs = values.quick ? 3 : Number(values.runs);
const loadStart = loadavg();

const LISTS = new URL('./tool-lists/', import.meta.url);
const real = readdirSync(LISTS)
  .filter((f) => f.endsWith('.json'))
  .sort()
  .map((f) => {
    const data = JSON.parse(readFileSync(new URL(f, LISTS), 'utf8')) as { package: string; tools: Tool[] };
    return { name: f.replace(/\.json$/, ''), package: data.package, tools: data.tools };
  });
const realTools = real.reduce((n, s) => n + s.tools.length, 0);
const { queries, heldOut, plainTuned, plainHeldOut, plainFresh } = JSON.parse(
  readFileSync(new URL('./tool-queries.json', import.meta.url), 'utf8'),
) as Record<
  'queries' | 'heldOut' | 'plainTuned' | 'plainHeldOut' | 'plainFresh',
  { query: string; expected: string[] }[]
>;

/** The bridge's catalogue over these servers, as `switchboard serve` makes it (HTTP aside). */
function catalogOf(servers: { name: string; tools: Tool[] }[], filters: Record<string, ToolFilter> = {}) {
  const emptyLists: ServerLists = {
    capabilities: { tools: {} },
    serverInfo: { name: 'bench', version: '0' },
    tools: [],
    prompts: [],
    resources: [],
    resourceTemplates: [],
  } as unknown as ServerLists;
  // Read at each call: a server whose tools change gets a new array, as the core's lists do.
  const listed = (): Listed[] =>
    servers.map((s) => ({ name: s.name, lists: emptyLists, tools: s.tools, gate: undefined, approvedAt: 0 }));
  const byName = new Map(servers.map((s) => [s.name, s]));
  // AggregateCatalog reads only listed() of Upstreams.
  const upstreams = { listed } as unknown as Upstreams;
  const access = new ToolAccess({
    listing: (server) => {
      const all = byName.get(server)?.tools;
      return all ? { all, gate: undefined } : undefined;
    },
    serverFilter: (server) => filters[server],
    selection: () => undefined,
  });
  return new AggregateCatalog(upstreams, access);
}

const figures: Figure[] = [];
const notes: string[] = [];

// ─── recall over the real tools ─────────────────────────────────────────────────────────────────
const catalog = catalogOf(real);
function recall(set: { query: string; expected: string[] }[], label: string): void {
  let at1 = 0;
  let at5 = 0;
  for (const { query, expected } of set) {
    const found = catalog.find('bench', () => true, query, 5).map((f) => f.name);
    if (expected.includes(found[0] ?? '')) at1++;
    if (found.some((name) => expected.includes(name))) at5++;
    else
      notes.push(
        `missed (${label}): "${query}" → ${found.slice(0, 3).join(', ') || 'nothing'} (wanted ${expected.join(' or ')})`,
      );
  }
  figures.push({
    name: `find_tools recall@5, ${label} (${set.length} queries, ${realTools} real tools of ${real.length} servers)`,
    value: (100 * at5) / set.length,
    unit: '%',
    detail: `${at5}/${set.length}; recall@1 ${((100 * at1) / set.length).toFixed(0)} %`,
  });
}
recall(queries, 'tuned-on set');
recall(heldOut, 'held-out set');
recall(plainTuned, 'plain-language tuned-on set');
recall(plainHeldOut, 'plain-language held-out set');
recall(plainFresh, 'plain-language set written after the tuning');
if (values['recall-only']) {
  finish({ bench: 'tools', title: 'find_tools recall', machine: machineInfo(loadStart), figures, notes });
  process.exit(0);
}

// ─── speed over 2,000+ tools ────────────────────────────────────────────────────────────────────
const copies = Math.ceil(2000 / realTools);
// Copies of their own (the index reads a server's tools again only when they are new objects).
const many = Array.from({ length: copies }, (_, i) =>
  real.map((s) => ({ name: i === 0 ? s.name : `${s.name}-${i + 1}`, tools: structuredClone(s.tools) })),
).flat();
const manyTools = many.reduce((n, s) => n + s.tools.length, 0);
const big = catalogOf(many);
/** Wall and CPU time (user + system) of one call, in ms. */
function timed<T>(fn: () => T, into: { wall: number[]; cpu: number[] }): T {
  const cpu = process.cpuUsage();
  const start = performance.now();
  const result = fn();
  into.wall.push(performance.now() - start);
  const used = process.cpuUsage(cpu);
  into.cpu.push((used.user + used.system) / 1000);
  return result;
}
const series = () => ({ wall: [] as number[], cpu: [] as number[] });
const build = series();
const rebuild = series();
const search = series();
const listCold = series();
const listWarm = series();
for (let run = 0; run < runs; run++) {
  // Every server's tools new (as at start): the first search after it reads them all.
  for (const server of many) server.tools = structuredClone(server.tools);
  big.invalidate();
  timed(() => big.find('bench', () => true, 'warm up the index', 5), build);
  // One server's tools changed (its list_changed): the next search reads only its tools again.
  const changed = many[run % many.length];
  if (changed) changed.tools = structuredClone(changed.tools);
  big.invalidate();
  timed(() => big.find('bench', () => true, 'warm up the index', 5), rebuild);
  for (const { query } of queries) timed(() => big.find('bench', () => true, query, 5), search);
  big.invalidate();
  const { tools } = timed(() => big.listTools('bench', () => true), listCold);
  timed(() => big.listTools('bench', () => true), listWarm);
  if (tools.length !== manyTools) throw new Error(`listed ${tools.length} of ${manyTools} tools`);
}
const findBudget = { op: '<=' as const, limit: 20, text: 'find_tools over 2,000 tools <= 20 ms' };
const listBudget = { op: '<=' as const, limit: 20, text: '2,000 tools: aggregate tools/list <= 20 ms' };
const at = `${manyTools} tools of ${many.length} servers`;
const p99 = (name: string, values: number[], budget?: typeof findBudget): Figure => ({
  name,
  value: percentile(values, 0.99),
  unit: 'ms',
  detail: `n=${values.length}`,
  ...(budget ? { budget } : {}),
});
figures.push(
  medianFigure(`find_tools over ${at}: CPU time per search`, search.cpu, 'ms', findBudget),
  p99('  p99 of that CPU time', search.cpu, findBudget),
  medianFigure('  wall time per search', search.wall, 'ms'),
  p99('  p99 wall time', search.wall),
  medianFigure(`first find_tools once every server's tools are new (whole index made): CPU`, build.cpu, 'ms'),
  medianFigure('  wall time', build.wall, 'ms'),
  medianFigure(`first find_tools after one server's tools changed: CPU`, rebuild.cpu, 'ms', findBudget),
  medianFigure('  wall time', rebuild.wall, 'ms'),
  medianFigure(`aggregate tools/list of ${at}, first after a change: CPU`, listCold.cpu, 'ms', listBudget),
  medianFigure('  wall time', listCold.wall, 'ms'),
  medianFigure(`aggregate tools/list, unchanged: CPU`, listWarm.cpu, 'ms', listBudget),
);

// ─── what Cursor's tool list costs, with and without each feature ──────────────────────────────
/** A person's choices, as the README suggests them: servers' filters for what nobody should get… */
const SERVER_FILTERS: Record<string, ToolFilter> = {
  github: { exclude: ['push_files', 'merge_pull_request', 'create_repository', 'fork_repository'] },
  kubernetes: { exclude: ['kubectl_delete', 'uninstall_helm_chart', 'cleanup', 'node_management'] },
  notion: { exclude: ['API-delete-a-block', '*-data-source*'] },
  firecrawl: {
    exclude: ['firecrawl_monitor_*', 'firecrawl_research_*', 'firecrawl_agent*', 'firecrawl_interact*'],
  },
  everything: { include: ['echo', 'get-sum'] },
  'chrome-devtools': { exclude: ['performance_*', 'screencast_*', 'take_heapsnapshot', 'lighthouse_audit'] },
};
/** …and Cursor's own selection: what it is used for (code, the browser, docs), under its ~40. */
const CURSOR_SELECTION: Record<string, ToolFilter> = {
  github: { include: ['*issue*', '*pull_request*', 'search_*', 'get_file_contents'] },
  memory: { include: [] },
  playwright: {
    include: [
      'browser_navigate',
      'browser_snapshot',
      'browser_click',
      'browser_type',
      'browser_take_screenshot',
    ],
  },
  filesystem: { include: ['read_text_file', 'write_file', 'edit_file', 'list_directory', 'search_files'] },
  ...Object.fromEntries(
    [
      'chrome-devtools',
      'puppeteer',
      'firecrawl',
      'notion',
      'kubernetes',
      'slack',
      'google-maps',
      'everything',
      'exa',
      'tavily',
    ].map((s) => [s, { include: [] }]),
  ),
};
const byName = new Map(real.map((s) => [s.name, s.tools]));
const view = (settings: Record<string, unknown>, filters: Record<string, ToolFilter>) =>
  editorToolsView('cursor', {
    servers: real.map((s) => s.name),
    listing: (server) => {
      const all = byName.get(server);
      return all ? { all, gate: undefined } : undefined;
    },
    filter: (server) => filters[server],
    settings: EditorSettingsSchema.parse(settings),
    called: new Map(),
  });
const plain = view({}, {});
const filtered = view({}, SERVER_FILTERS);
const selected = view({ tools: CURSOR_SELECTION }, SERVER_FILTERS);
const discovery = view({ discovery: true }, SERVER_FILTERS);
const row = (name: string, v: ReturnType<typeof view>, note = ''): Figure => ({
  name: `Cursor's tool list: ${name}`,
  value: v.current.tokens,
  unit: 'tokens',
  detail: `${v.current.tools} tools${note}`,
});
figures.push(
  row(
    'every tool of 18 servers',
    plain,
    `; ${plain.warnings.find((w) => w.level === 'over') ? 'over Cursor’s ~40' : ''}`,
  ),
  row('with the servers’ filters', filtered),
  row(
    'with its own selection too',
    selected,
    `; ${selected.shortened} name(s) shortened for its 60-character limit`,
  ),
  row('in discovery mode (find_tools + call_tool)', discovery),
);

// ─── the estimator against a real tokenizer ────────────────────────────────────────────────────
let estimated = 0;
let counted = 0;
for (const { tools } of real) {
  for (const tool of tools) {
    estimated += toolTokens(tool);
    const { name, title, description, inputSchema } = tool;
    counted += encode(JSON.stringify({ name, title, description, inputSchema })).length;
  }
}
figures.push({
  name: `estimated tokens (JSON bytes / 4) vs o200k_base, ${realTools} real tools`,
  value: (100 * (estimated - counted)) / counted,
  unit: '%',
  detail: `estimated ${estimated}, counted ${counted}`,
});
notes.push(
  `servers: ${real.map((s) => `${s.name} (${s.tools.length})`).join(', ')}`,
  'find_tools is measured in-process through AggregateCatalog.find (the code /mcp runs), without HTTP; the per-request HTTP cost is the bridge bench’s.',
  'Budgets are checked on CPU time: wall times on a shared 2-core machine carry other work (see the load above); the CPU time shows the work itself.',
);

finish({
  bench: 'tools',
  title: `Tool budget: discovery mode and editors' tool lists over the real tools of ${real.length} npm servers`,
  machine: machineInfo(loadStart),
  figures,
  notes,
});

function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))] ?? 0;
}
