import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { checkUses, type Finding } from '../../../build/architecture/uses.ts';

/**
 * The "takes only what it uses" rule of build/architecture/uses.ts against a small tree laid out like
 * the repository: a service (an option, a nested method, a Pick's member and a member of a class taken
 * whole), a route and a command that each take a property they never read must be
 * reported at the parameter's file:line with that property; receivers that read all they take (through
 * fields, destructuring, aliases, or by handing it on whole) must not, nor a composition root, nor data.
 * (`npm test` runs the rule over the real tree; this shows it can fail.)
 */
const tree: Record<string, string> = {
  'electron/cli/context.ts': `
export interface CliContext {
  home: string;
  output: { out(line: string): void };
  keychain(): string;
}
`,
  // takes more than it uses: an unread option, a nested method never called, a Pick's extra member
  'electron/core/services/greedy.ts': `
export class Store {
  get(name: string): string { return name; }
  put(name: string): void { void name; }
}
export interface GreedyOptions {
  store: Pick<Store, 'get' | 'put'>;
  cache: Store;
  servers: { entries(): string[]; entry(name: string): string };
  clock: () => number;
}
export class Greedy {
  readonly #o: GreedyOptions;
  constructor(options: GreedyOptions) {
    this.#o = options;
  }
  names(): string[] {
    return this.#o.servers.entries().map((n) => this.#o.store.get(n) + this.#o.cache.get(n));
  }
}
// picked from the options: the class it holds is still looked into
export function picked(options: Pick<GreedyOptions, 'cache'>): string {
  return options.cache.get('x');
}
`,
  // a route whose Core interface declares a method the route never calls
  'electron/core/bridge/greedy-routes.ts': `
export interface GreedyRoutesCore {
  readonly approvals: { approve(name: string): void; deny(name: string): void };
  readonly status: { report(): string };
}
export function createGreedyRoutes(core: GreedyRoutesCore) {
  return (name: string) => {
    core.approvals.approve(name);
    return core.status.report();
  };
}
// handed on whole: uses what the routes declare (deny too), not its own logs
export interface OuterCore extends GreedyRoutesCore {
  readonly logs: { lines(): string[] };
}
export function createOuter(core: OuterCore) {
  return createGreedyRoutes(core);
}
`,
  // a command that takes the whole context and prints only
  'electron/cli/commands/greedy.ts': `
import type { CliContext } from '../context.ts';
export function greedyCommand(ctx: CliContext): number {
  ctx.output.out('hi');
  return 0;
}
`,
  // reads everything it takes, in each of the ways the rule follows
  'electron/core/services/frugal.ts': `
import type { CliContext } from '../../cli/context.ts';
export interface Narrow { servers: { entries(): string[] } }
export function listed(core: Narrow): string[] { return core.servers.entries(); }
export interface FrugalOptions {
  servers: { entries(): string[]; entry(name: string): string };
  clock: () => number;
  label?: string;
  hooks: { changed(): void; forgotten(names: string[]): void };
  ctx: Pick<CliContext, 'home' | 'output'>;
  extra: { a: number; b: number };
}
export class Frugal {
  readonly #servers: FrugalOptions['servers'];
  readonly #hooks: FrugalOptions['hooks'];
  readonly #rest: { a: number; b: number };
  constructor(options: FrugalOptions) {
    this.#servers = options.servers;
    const { clock, label = 'frugal', ctx } = options;
    this.#hooks = options.hooks;
    this.#rest = options.extra;
    ctx.output.out(label + clock() + ctx.home);
    listed(options);
  }
  one(name: string): string {
    const hooks = this.#hooks;
    hooks.changed();
    this.#hooks.forgotten([name]);
    console.log(this.#rest);
    return this.#servers.entry(name);
  }
}
export function frugalCommand(ctx: Pick<CliContext, 'output' | 'keychain'>): void {
  const { output } = ctx;
  output.out(ctx.keychain());
}
`,
  // data read in part, and a composition root that hands on more than it uses: not the rule's
  'electron/core/entry.ts': `
export interface Entry { name: string; fingerprint: string; refusal?: string }
export function label(entry: Entry): string { return entry.name; }
`,
  'electron/core/core.ts': `
export interface CoreOptions { home: string; unused: number }
export class Core {
  readonly home: string;
  constructor(options: CoreOptions) { this.home = options.home; }
}
`,
};

const repo = mkdtempSync(join(tmpdir(), 'sb-uses-'));
for (const [path, text] of Object.entries(tree)) {
  mkdirSync(dirname(join(repo, path)), { recursive: true });
  writeFileSync(join(repo, path), text.trimStart());
}
afterAll(() => rmSync(repo, { recursive: true, force: true }));

/** `file:line receiver parameter.property`, as the check prints them. */
const shown = (found: Finding[]) =>
  found.map((f) => `${f.file}:${f.line} ${f.receiver} ${f.parameter}.${f.property}`).sort();

describe('takes only what it uses', () => {
  const found = checkUses(repo, {
    roots: ['electron'],
    compositionRoots: ['electron/core/core.ts'],
    contexts: ['CliContext'],
  });

  it('reports each property taken and never read, at the receiving parameter', () => {
    expect(shown(found)).toEqual([
      'electron/cli/commands/greedy.ts:2 greedyCommand ctx.home',
      'electron/cli/commands/greedy.ts:2 greedyCommand ctx.keychain',
      'electron/core/bridge/greedy-routes.ts:15 createOuter core.logs',
      'electron/core/bridge/greedy-routes.ts:5 createGreedyRoutes core.approvals.deny',
      'electron/core/services/greedy.ts:13 Greedy constructor options.cache.put',
      'electron/core/services/greedy.ts:13 Greedy constructor options.clock',
      'electron/core/services/greedy.ts:13 Greedy constructor options.servers.entry',
      'electron/core/services/greedy.ts:13 Greedy constructor options.store.put',
      'electron/core/services/greedy.ts:21 picked options.cache.put',
    ]);
  });

  it('says where the type that has an unread member is written', () => {
    const entry = found.find((f) => f.property === 'servers.entry');
    expect(entry?.declaredAt).toBe('electron/core/services/greedy.ts:8');
    expect(found.find((f) => f.property === 'clock')?.declaredAt).toBe('electron/core/services/greedy.ts:13');
  });

  it('finds nothing where everything taken is read, in data, or in a composition root', () => {
    const clean = found.filter((f) => !f.file.includes('greedy'));
    expect(clean).toEqual([]);
  });
});
