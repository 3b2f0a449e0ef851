import type { Tool } from '@modelcontextprotocol/sdk/types.js';

/**
 * Discovery mode: instead of every tool, an editor gets these two on /mcp and reaches every server's
 * tools through them. Their names hold no `__`, so no aggregate name `<server>__<tool>` can be one.
 */
export const FIND_TOOLS: Tool = {
  name: 'find_tools',
  title: 'Find tools',
  description:
    'Searches the tools of every MCP server Switchboard runs for you and returns the best matches, each with its input schema. Call one with call_tool, giving its name and arguments that fit its schema. Describe the task in a few words, e.g. "create a GitHub issue" or "read a file".',
  inputSchema: {
    type: 'object',
    properties: {
      query: { type: 'string', description: 'what you want to do, in a few words' },
      limit: {
        type: 'integer',
        minimum: 1,
        maximum: 20,
        description: 'how many tools to return (default 5)',
      },
    },
    required: ['query'],
  },
  annotations: { readOnlyHint: true, openWorldHint: false },
};

export const CALL_TOOL: Tool = {
  name: 'call_tool',
  title: 'Call a tool',
  description:
    'Calls a tool that find_tools returned, by the name find_tools gave, with arguments that fit its input schema; returns what the tool returns.',
  inputSchema: {
    type: 'object',
    properties: {
      name: { type: 'string', description: 'the tool’s name as find_tools gave it' },
      arguments: { type: 'object', description: 'the tool’s arguments', additionalProperties: true },
    },
    required: ['name'],
  },
};

export const DISCOVERY_TOOLS: readonly Tool[] = [FIND_TOOLS, CALL_TOOL];

/** find_tools answers at most this many tools, and this many when asked for no number. */
export const MAX_FOUND = 20;
export const DEFAULT_FOUND = 5;

/** One tool in the index: which server's, and its definition as the server lists it. */
export interface IndexedTool {
  server: string;
  tool: Tool;
}

/** How much a match counts by where it is: a word of the name says more than one of the description. */
const WEIGHTS = { name: 3, server: 2, title: 2, params: 1.5, description: 1 } as const;
/** BM25's term-frequency saturation and length normalisation (the usual values). */
const K1 = 1.2;
const B = 0.75;
/** A tool matching none but one of many query words keeps this share of its score (see search). */
const COVERAGE_FLOOR = 0.7;
/** A word matched through a synonym counts this much of the word itself. */
const SYNONYM_WEIGHT = 0.5;

const STOP_WORDS = new Set(
  (
    'a an and any are as at be by can do for from get i in is it its me my of on or please some that the this to use using want we with you your ' +
    // what a sentence adds around the task ("how do I…", "I'd like you to…", "…for me right now")
    "about also am been could did does how i'd i'm i've im into just know like need needs now our right currently should so tell than then there these they this those us was what when where which who whose why will would"
  ).split(' '),
);

/** Verbs and nouns tools are often named with, and what people ask with instead. */
const SYNONYMS: Record<string, readonly string[]> = {
  create: ['add', 'new', 'make', 'open', 'write', 'insert'],
  add: ['create', 'new', 'insert'],
  delete: ['remove', 'drop', 'erase', 'destroy'],
  remove: ['delete', 'drop'],
  update: ['edit', 'modify', 'change', 'set', 'patch'],
  edit: ['update', 'modify', 'change'],
  read: ['get', 'fetch', 'show', 'view', 'open', 'load'],
  fetch: ['get', 'read', 'download', 'retrieve'],
  list: ['show', 'all', 'enumerate'],
  search: ['find', 'query', 'look', 'lookup', 'grep'],
  find: ['search', 'query', 'look', 'lookup'],
  query: ['search', 'find', 'sql'],
  run: ['execute', 'exec', 'start'],
  execute: ['run', 'exec'],
  navigate: ['open', 'go', 'visit', 'browse'],
  click: ['press', 'tap'],
  screenshot: ['capture', 'snapshot', 'image'],
  file: ['document', 'path'],
  directory: ['folder', 'dir'],
  folder: ['directory', 'dir'],
  pr: ['pull', 'request'],
  issue: ['ticket', 'bug'],
  message: ['send', 'post', 'chat'],
  send: ['message', 'post'],
  web: ['internet', 'online', 'website', 'page'],
  page: ['web', 'website'],
  memory: ['remember', 'knowledge', 'note'],
  remember: ['memory', 'store', 'save', 'observation'],
  javascript: ['script', 'js', 'evaluate', 'code'],
  link: ['relation', 'connect', 'url'],
  entity: ['node', 'thing'],
  relation: ['link', 'edge', 'connection'],
  move: ['rename'],
  rename: ['move'],
  write: ['save', 'create', 'store'],
  doc: ['documentation', 'docs', 'library'],
  // Plain words for what tools are named with (issue 36 item 11): how a person says the task.
  save: ['store', 'write', 'create', 'add', 'record'],
  store: ['save', 'create', 'add', 'remember', 'record', 'observation'],
  record: ['save', 'store', 'add', 'observation'],
  note: ['observation', 'memory', 'remember', 'comment'],
  fact: ['observation', 'entity', 'knowledge'],
  person: ['entity', 'user', 'people'],
  people: ['entity', 'user', 'person'],
  someone: ['user', 'person', 'entity'],
  sum: ['add', 'total', 'plus', 'number'],
  total: ['sum', 'add', 'count'],
  number: ['sum', 'numeric', 'count'],
  calculate: ['sum', 'compute', 'math'],
  tell: ['send', 'message', 'post', 'notify'],
  say: ['send', 'message', 'post', 'echo'],
  notify: ['send', 'message', 'post'],
  post: ['send', 'message', 'create'],
  reply: ['respond', 'answer', 'thread'],
  answer: ['reply', 'respond'],
  show: ['get', 'list', 'read', 'view', 'display'],
  see: ['view', 'get', 'read', 'screenshot'],
  look: ['view', 'screenshot', 'search', 'find'],
  picture: ['image', 'screenshot', 'photo', 'media'],
  image: ['picture', 'screenshot', 'media', 'photo'],
  photo: ['image', 'picture', 'media'],
  copy: ['fork', 'duplicate', 'clone'],
  clone: ['fork', 'copy'],
  close: ['update', 'state', 'closed', 'finish'],
  done: ['closed', 'complete', 'update', 'state'],
  merge: ['combine', 'land', 'integrate'],
  popup: ['dialog', 'alert', 'modal'],
  dialog: ['popup', 'alert', 'confirm', 'prompt'],
  alert: ['dialog', 'popup'],
  near: ['nearby', 'place', 'places'],
  nearby: ['near', 'place', 'places'],
  place: ['places', 'location', 'nearby'],
  route: ['directions', 'travel', 'distance'],
  travel: ['directions', 'route', 'distance'],
  drive: ['directions', 'driving', 'distance'],
  directions: ['route', 'travel'],
  address: ['geocode', 'location', 'place'],
  coordinates: ['latitude', 'longitude', 'geocode', 'location'],
  table: ['sql', 'database', 'query', 'rows'],
  rows: ['sql', 'query', 'table'],
  database: ['sql', 'query', 'table'],
  sql: ['query', 'database'],
  output: ['logs', 'log', 'result'],
  logs: ['log', 'output'],
  website: ['page', 'web', 'site', 'browser'],
  site: ['website', 'page', 'web'],
  browser: ['page', 'web', 'website'],
  article: ['page', 'url', 'content', 'scrape', 'extract'],
  url: ['link', 'page', 'address'],
  react: ['reaction', 'emoji'],
  reaction: ['emoji', 'react'],
  emoji: ['reaction', 'react'],
  slow: ['performance', 'speed', 'trace'],
  performance: ['speed', 'slow', 'trace'],
  text: ['content', 'string'],
  type: ['fill', 'text', 'enter', 'input'],
  fill: ['type', 'enter', 'input'],
  enter: ['type', 'fill', 'input'],
  upload: ['file', 'attach'],
  think: ['thinking', 'reason', 'step'],
  step: ['sequential', 'thinking'],
};

/** Words of a text: split on anything not a letter or digit and at camelCase, lower-cased, stemmed. */
export function words(text: string): string[] {
  const out: string[] = [];
  const spaced = text.replace(/([a-z0-9])([A-Z])/g, '$1 $2').replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2');
  for (const raw of spaced.toLowerCase().split(/[^\p{L}\p{N}]+/u)) {
    if (!raw || STOP_WORDS.has(raw)) continue;
    out.push(stem(raw));
  }
  return out;
}

/** A light English suffix stemmer: enough that "issues", "issue" and "creating", "create" meet. */
function stem(word: string): string {
  if (word.length <= 3) return word;
  if (word.endsWith('ies') && word.length > 4) return `${word.slice(0, -3)}y`;
  if (/(ss|us|is)$/.test(word)) return word;
  if (/(ches|shes|sses|xes|zes)$/.test(word)) return word.slice(0, -2);
  if (word.endsWith('s')) return word.slice(0, -1);
  if (word.endsWith('ing') && word.length > 5) return word.slice(0, -3).replace(/(.)\1$/, '$1');
  if (word.endsWith('ed') && word.length > 4) return word.slice(0, -2).replace(/(.)\1$/, '$1');
  return word;
}

const STEMMED_SYNONYMS = new Map(
  Object.entries(SYNONYMS).map(([word, others]) => [stem(word), others.map(stem)] as const),
);

interface Posting {
  /** the document's index within its server's part */
  doc: number;
  /** the word's weighted count in the document */
  tf: number;
}

/** One server's share of the index: its tools' words, kept until that server's tools change. */
interface Part {
  server: string;
  tools: readonly Tool[];
  postings: Map<string, Posting[]>;
  lengths: Float64Array;
  total: number;
}

function partOf(server: string, tools: readonly Tool[]): Part {
  const postings = new Map<string, Posting[]>();
  const lengths = new Float64Array(tools.length);
  const ofServer = words(server);
  let total = 0;
  tools.forEach((tool, i) => {
    const counts = new Map<string, number>();
    const add = (text: string | undefined, weight: number) => {
      if (!text) return;
      for (const word of words(text)) counts.set(word, (counts.get(word) ?? 0) + weight);
    };
    add(tool.name, WEIGHTS.name);
    add(tool.title, WEIGHTS.title);
    add(tool.description, WEIGHTS.description);
    add(Object.keys(tool.inputSchema.properties ?? {}).join(' '), WEIGHTS.params);
    for (const word of ofServer) counts.set(word, (counts.get(word) ?? 0) + WEIGHTS.server);
    let length = 0;
    for (const [word, tf] of counts) {
      length += tf;
      let list = postings.get(word);
      if (!list) postings.set(word, (list = []));
      list.push({ doc: i, tf });
    }
    lengths[i] = length;
    total += length;
  });
  return { server, tools, postings, lengths, total };
}

/**
 * A lexical index (BM25 over weighted fields) of every listed tool: words of its name (split at `_`,
 * `-` and camelCase), its server's name, title, description and parameter names. Kept in one part
 * per server: `update` reads again only the servers whose tools changed (the same objects in the same
 * order are the same tools), so the first search after one server's list changed costs that server.
 * A search scores only the documents the asker may have.
 */
export class ToolIndex {
  #parts: Part[] = [];
  /** every document, in part order: a document's number is its place here */
  #docs: IndexedTool[] = [];
  #offsets: number[] = [];
  #averageLength = 1;

  /** Makes the index be of these servers' tools (in this order), reusing the parts that did not change. */
  update(servers: readonly { name: string; tools: readonly Tool[] }[]): void {
    const old = new Map(this.#parts.map((p) => [p.server, p]));
    this.#parts = servers.map(({ name, tools }) => {
      const kept = old.get(name);
      return kept && sameTools(kept.tools, tools) ? kept : partOf(name, tools);
    });
    this.#docs = [];
    this.#offsets = [];
    let total = 0;
    for (const part of this.#parts) {
      this.#offsets.push(this.#docs.length);
      for (const tool of part.tools) this.#docs.push({ server: part.server, tool });
      total += part.total;
    }
    this.#averageLength = this.#docs.length ? total / this.#docs.length : 1;
  }

  get docs(): readonly IndexedTool[] {
    return this.#docs;
  }

  /**
   * The best `limit` documents for `query` among those `allowed` lets through, best first (ties by
   * index order, so the answer is stable); only documents that match a word at all.
   */
  search(query: string, limit: number, allowed: (doc: number) => boolean): { doc: number; score: number }[] {
    // Each term: its weight, and which of the query's words it stands for (itself, or a synonym's).
    const terms = new Map<string, { weight: number; of: Set<string> }>();
    const asked = [...new Set(words(query))];
    const note = (term: string, weight: number, of: string) => {
      const known = terms.get(term);
      if (known) {
        known.weight = Math.max(known.weight, weight);
        known.of.add(of);
      } else terms.set(term, { weight, of: new Set([of]) });
    };
    for (const word of asked) {
      note(word, 1, word);
      for (const other of STEMMED_SYNONYMS.get(word) ?? []) note(other, SYNONYM_WEIGHT, word);
    }
    const scores = new Map<number, number>();
    /** per document, the query's words it answers (directly or through a synonym) */
    const covered = new Map<number, Set<string>>();
    const n = this.#docs.length;
    for (const [term, { weight, of }] of terms) {
      let df = 0;
      for (const part of this.#parts) df += part.postings.get(term)?.length ?? 0;
      if (df === 0) continue;
      const idf = Math.log(1 + (n - df + 0.5) / (df + 0.5));
      this.#parts.forEach((part, p) => {
        const offset = this.#offsets[p] ?? 0;
        for (const { doc, tf } of part.postings.get(term) ?? []) {
          const id = offset + doc;
          if (!allowed(id)) continue;
          const norm = K1 * (1 - B + (B * (part.lengths[doc] ?? 0)) / this.#averageLength);
          const score = weight * idf * ((tf * (K1 + 1)) / (tf + norm));
          scores.set(id, (scores.get(id) ?? 0) + score);
          let seen = covered.get(id);
          if (!seen) covered.set(id, (seen = new Set()));
          for (const word of of) seen.add(word);
        }
      });
    }
    // A plain-language request has several words; a tool that answers more of them is likelier the
    // one meant than a tool that matches one word strongly (its name's verb, e.g. "add").
    const share = (doc: number) => (covered.get(doc)?.size ?? 0) / Math.max(1, asked.length);
    return [...scores]
      .map(([doc, score]) => ({ doc, score: score * (COVERAGE_FLOOR + (1 - COVERAGE_FLOOR) * share(doc)) }))
      .sort((a, b) => b.score - a.score || a.doc - b.doc)
      .slice(0, limit);
  }
}

function sameTools(a: readonly Tool[], b: readonly Tool[]): boolean {
  return a.length === b.length && a.every((tool, i) => tool === b[i]);
}
