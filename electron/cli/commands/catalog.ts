import { parseArgs } from 'node:util';
import {
  freshnessWords,
  type CatalogDetail,
  type CatalogField,
  type CatalogFreshness,
  type CatalogInstallRequest,
  type CatalogInstallResult,
  type CatalogOption,
  type CatalogPage,
  type CatalogRegistry,
  type CatalogSearchRequest,
  type CatalogServerRequest,
} from '../../../shared/catalog.ts';
import { displayText } from '../../../shared/display-text.ts';
import { Catalog } from '../../core/catalog/catalog.ts';
import { REGISTRY_ENV } from '../../core/catalog/registry-address.ts';
import { UserError } from '../../core/errors.ts';
import { AppStateStore } from '../../core/trust/app-state.ts';
import type { CliContext } from '../context.ts';
import { InstanceClient } from '../instance.ts';
import { table, UsageError } from '../output.ts';
import { ask, askSecret, interactive } from '../prompt.ts';
import { usageOf } from '../help.ts';

const USAGE = usageOf('catalog');

/** What the catalog commands need: the running instance's catalog, or one over the files here. */
interface CatalogApi {
  search(request: CatalogSearchRequest): Promise<CatalogPage>;
  detail(request: CatalogServerRequest): Promise<CatalogDetail>;
  install(request: CatalogInstallRequest): Promise<CatalogInstallResult>;
  registry(): Promise<CatalogRegistry>;
  setRegistry(url: string | null): Promise<CatalogRegistry>;
}

export async function catalogCommand(
  ctx: Pick<CliContext, 'home' | 'env' | 'output' | 'stdin' | 'keychain' | 'commandPath'>,
  argv: string[],
): Promise<number> {
  const [sub, ...rest] = argv;
  switch (sub) {
    case 'search':
      return search(ctx, rest);
    case 'show':
      return show(ctx, rest);
    case 'add':
      return add(ctx, rest);
    case 'registry':
      return registry(ctx, rest);
    default:
      throw new UsageError(USAGE);
  }
}

/**
 * The running instance's catalog when Switchboard runs (its registry, cache and keychain, and the
 * approval says where the server came from), else one over the files in the home.
 */
async function catalogApi(
  ctx: Pick<CliContext, 'home' | 'env' | 'keychain' | 'commandPath'>,
): Promise<CatalogApi> {
  const client = InstanceClient.connect(ctx.home);
  if (client) {
    // SWITCHBOARD_REGISTRY_URL of this command wins here as it does without a running Switchboard:
    // the instance asks that registry for these requests (its own setting stays as it is).
    const fromEnv = ctx.env[REGISTRY_ENV]?.trim();
    const via = fromEnv ? { registry: fromEnv } : {};
    const withEnv = (registry: CatalogRegistry): CatalogRegistry =>
      fromEnv ? { ...registry, url: fromEnv, source: 'env' } : registry;
    return {
      search: (r) => client.catalogSearch({ ...r, ...via }),
      detail: (r) => client.catalogDetail({ ...r, ...via }),
      install: (r) => client.catalogInstall({ ...r, ...via }),
      registry: async () => withEnv(await client.catalogRegistry()),
      setRegistry: async (url) => withEnv(await client.setCatalogRegistry(url)),
    };
  }
  const path = await ctx.commandPath();
  const catalog = new Catalog({
    home: ctx.home,
    state: new AppStateStore(ctx.home.stateFile),
    env: ctx.env,
    keychain: ctx.keychain(),
    lookup: (cwd) => ({
      path,
      pathExt: ctx.env.PATHEXT,
      cwd: cwd ?? ctx.home.root,
      platform: process.platform,
    }),
  });
  return {
    search: (r) => catalog.search(r),
    detail: (r) => catalog.detail(r),
    install: (r) => catalog.install(r),
    registry: () => Promise.resolve(catalog.registry()),
    setRegistry: (url) => Promise.resolve(catalog.setRegistry(url)),
  };
}

async function search(
  ctx: Pick<CliContext, 'home' | 'env' | 'output' | 'keychain' | 'commandPath'>,
  argv: string[],
): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    options: { json: { type: 'boolean' }, refresh: { type: 'boolean' }, cursor: { type: 'string' } },
    allowPositionals: true,
  });
  const term = positionals.join(' ');
  const api = await catalogApi(ctx);
  const page = await api.search({
    search: term,
    ...(values.cursor ? { cursor: values.cursor } : {}),
    ...(values.refresh ? { refresh: true } : {}),
  });
  if (values.json) {
    ctx.output.out(JSON.stringify(page, null, 2));
    return 0;
  }
  noteFreshness(ctx, page);
  if (page.entries.length === 0) {
    ctx.output.out(
      term ? `No server in the registry matches "${displayText(term)}".` : 'The registry lists no servers.',
    );
  } else {
    const rows = [['NAME', 'VERSION', 'RUNS WITH', 'DESCRIPTION']];
    for (const e of page.entries)
      rows.push([
        e.name,
        displayText(e.version),
        e.kinds.join(',') || '-',
        oneLine(e.status ? `[${e.status}] ${e.description}` : e.description, 70),
      ]);
    ctx.output.out(table(rows));
  }
  if (page.skipped)
    ctx.output.err(
      `${page.skipped} entr${page.skipped === 1 ? 'y' : 'ies'} of the registry's answer ${page.skipped === 1 ? 'is' : 'are'} not valid server.json and not shown.`,
    );
  if (page.nextCursor)
    ctx.output.out(
      displayText(
        `More: switchboard catalog search ${shellWord(term)} --cursor ${shellWord(page.nextCursor)}`,
      ),
    );
  else if (page.entries.length) ctx.output.out('Details: switchboard catalog show NAME');
  return 0;
}

async function show(
  ctx: Pick<CliContext, 'home' | 'env' | 'output' | 'keychain' | 'commandPath'>,
  argv: string[],
): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    options: { version: { type: 'string' }, json: { type: 'boolean' }, refresh: { type: 'boolean' } },
    allowPositionals: true,
  });
  const name = single(positionals);
  const api = await catalogApi(ctx);
  const detail = await api.detail({
    name,
    ...(values.version ? { version: values.version } : {}),
    ...(values.refresh ? { refresh: true } : {}),
  });
  if (values.json) {
    ctx.output.out(JSON.stringify(detail, null, 2));
    return 0;
  }
  noteFreshness(ctx, detail);
  const e = detail.entry;
  const lines = [`${e.title ? `${e.title} — ` : ''}${e.name} ${displayText(e.version)}`, e.description];
  if (e.status) lines.push(`Status: ${e.status}${detail.statusMessage ? ` (${detail.statusMessage})` : ''}`);
  if (detail.repository) lines.push(`Source: ${detail.repository}`);
  if (detail.website) lines.push(`Website: ${detail.website}`);
  lines.push(
    '',
    detail.options.length
      ? 'How it can run:'
      : 'It names no package or remote endpoint Switchboard could run.',
  );
  detail.options.forEach((option, i) =>
    lines.push(
      ...describeOption(option, i, option.id === detail.recommended, viaName(option, detail.options)),
    ),
  );
  if (detail.options.some((o) => o.problem === null)) {
    lines.push(
      '',
      `Add it: switchboard catalog add ${e.name}${detail.recommended && detail.options.length > 1 ? ' [--via KIND]' : ''}`,
    );
  }
  ctx.output.out(lines.join('\n'));
  return 0;
}

function describeOption(option: CatalogOption, index: number, recommended: boolean, via: string): string[] {
  const lines = [`  ${index + 1}. ${option.label}${recommended ? '  (offered first)' : ''}   --via ${via}`];
  if (option.runtime)
    lines.push(
      option.runtimePath
        ? `     runs with ${option.runtime} (${option.runtimePath})`
        : `     needs ${option.runtime}, which is not installed`,
    );
  if (option.problem) lines.push(`     ✗ ${option.problem}`);
  for (const note of option.notes) lines.push(`     ! ${note}`);
  for (const field of option.fields) lines.push(`     - ${fieldLine(field)}`);
  return lines;
}

function fieldLine(field: CatalogField): string {
  const traits = [field.required ? 'required' : 'optional', ...(field.secret ? ['secret'] : [])];
  if (field.default !== null) traits.push(`default ${displayText(field.default)}`);
  if (field.choices) traits.push(`one of ${field.choices.map((c) => displayText(c)).join(', ')}`);
  return `${field.key}: ${field.label} (${traits.join(', ')})${field.description ? ` — ${oneLine(field.description, 100)}` : ''}`;
}

async function add(
  ctx: Pick<CliContext, 'home' | 'env' | 'output' | 'stdin' | 'keychain' | 'commandPath'>,
  argv: string[],
): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    options: {
      version: { type: 'string' },
      via: { type: 'string' },
      name: { type: 'string' },
      set: { type: 'string', multiple: true, default: [] },
    },
    allowPositionals: true,
  });
  const server = single(positionals);
  const api = await catalogApi(ctx);
  const detail = await api.detail({ name: server, ...(values.version ? { version: values.version } : {}) });
  noteFreshness(ctx, detail);
  const option = chooseOption(detail, values.via);
  if (option.problem) {
    const others = detail.options.filter((o) => o !== option && o.problem === null);
    throw new UserError(`${server} cannot be added as ${option.label}: ${option.problem}`, {
      ...(others.length
        ? { hint: `other ways: ${others.map((o) => `--via ${viaName(o, detail.options)}`).join(', ')}` }
        : {}),
    });
  }
  const name = values.name ?? detail.suggestedName;
  const plain: Record<string, string> = {};
  for (const item of values.set) {
    const eq = item.indexOf('=');
    if (eq <= 0) throw new UsageError(`--set takes KEY=VALUE (got "${displayText(item.slice(0, 40))}")`);
    const field = fieldByKey(option, item.slice(0, eq), '--set');
    if (field.secret)
      throw new UsageError(
        `${field.key} is a secret: do not put it on the command line (other users can see it there). ` +
          `Give it at the prompt, or on stdin: printf %s "$VALUE" | switchboard catalog add ${server}`,
      );
    plain[field.id] = item.slice(eq + 1);
  }
  const secretFields = option.fields.filter((f) => f.secret);
  const secrets: Record<string, string> = {};
  const tty = interactive(ctx);
  ctx.output.out(
    `Adding ${detail.entry.name} ${displayText(detail.entry.version)} as "${name}": ${option.label}.`,
  );
  if (secretFields.length) {
    if (tty) {
      // Which secrets are stored already under the names this install would use (Enter keeps them).
      const { plan } = await api.install({
        server: detail.entry.name,
        version: detail.entry.version,
        option: option.id,
        name,
        values: plain,
        dryRun: true,
      });
      for (const field of secretFields) {
        const known = plan.secrets.find((s) => s.field === field.id);
        const stored = known?.stored ? known.name : undefined;
        const answer = await askSecret(
          ctx,
          `${field.label}${field.description ? ` — ${oneLine(field.description, 100)}` : ''}\n` +
            `  secret, ${field.required ? 'required' : 'optional'}; typing is not shown${stored ? `; Enter keeps the one stored as "${stored}"` : field.required ? '' : '; Enter skips it'}: `,
        );
        if (answer) secrets[field.id] = answer;
      }
    } else {
      Object.assign(secrets, secretsFromStdin(await readAll(ctx.stdin), option, secretFields));
    }
  }
  for (const field of option.fields.filter(
    (f) => !f.secret && f.required && f.default === null && plain[f.id] === undefined,
  )) {
    if (!tty) continue;
    const answer = await ask(
      ctx,
      `${field.label}${field.description ? ` — ${oneLine(field.description, 100)}` : ''} (required): `,
    );
    if (answer) plain[field.id] = answer;
  }
  const request: CatalogInstallRequest = {
    server: detail.entry.name,
    version: detail.entry.version,
    option: option.id,
    name,
    values: plain,
    secrets,
  };
  const check = await api.install({ ...request, secrets: masked(secrets), dryRun: true });
  if (check.plan.issues.length || check.plan.problems.length) {
    for (const problem of check.plan.problems) ctx.output.err(`✗ ${problem}`);
    for (const issue of check.plan.issues) ctx.output.err(`✗ ${issueWords(issue, option)}`);
    ctx.output.err('Nothing was added.');
    return 1;
  }
  const { plan } = await api.install(request);
  ctx.output.out(`Added "${plan.name}" to ${ctx.home.serversFile}. It will run exactly:`);
  for (const line of plan.lines) ctx.output.out(`  ${line}`);
  for (const line of plan.references) ctx.output.out(`  (${line})`);
  for (const secret of plan.secrets) {
    const field = option.fields.find((f) => f.id === secret.field);
    if (secrets[secret.field])
      ctx.output.out(`${field?.key ?? secret.field}: stored in the keychain as \${secret:${secret.name}}.`);
    else if (secret.stored)
      ctx.output.out(
        `${field?.key ?? secret.field}: uses the keychain secret "${secret.name}" already stored.`,
      );
  }
  ctx.output.out(`It waits for your approval before it runs: switchboard approve ${plan.name}`);
  return 0;
}

async function registry(
  ctx: Pick<CliContext, 'home' | 'env' | 'output' | 'keychain' | 'commandPath'>,
  argv: string[],
): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    options: { default: { type: 'boolean' }, json: { type: 'boolean' } },
    allowPositionals: true,
  });
  if (positionals.length > 1 || (values.default && positionals.length)) throw new UsageError(USAGE);
  const api = await catalogApi(ctx);
  const result = values.default
    ? await api.setRegistry(null)
    : positionals[0]
      ? await api.setRegistry(positionals[0])
      : await api.registry();
  if (values.json) {
    ctx.output.out(JSON.stringify(result, null, 2));
    return 0;
  }
  const why = {
    env: 'from SWITCHBOARD_REGISTRY_URL',
    setting: 'set in Switchboard',
    default: 'the official registry',
  }[result.source];
  ctx.output.out(`The catalog asks ${displayText(result.url)} (${why}).`);
  if (result.source === 'env' && result.configured)
    ctx.output.out(
      `Saved setting (used when SWITCHBOARD_REGISTRY_URL is unset): ${displayText(result.configured)}`,
    );
  return 0;
}

// ---- helpers --------------------------------------------------------------------------------------

function noteFreshness(ctx: Pick<CliContext, 'output'>, freshness: CatalogFreshness): void {
  if (freshness.fromCache && freshness.problem) ctx.output.err(freshnessWords(freshness, Date.now()));
}

function single(positionals: string[]): string {
  if (positionals.length !== 1 || !positionals[0]) throw new UsageError(USAGE);
  return positionals[0];
}

/** How `--via` names an option: its kind when no other option has that kind, else its id. */
function viaName(option: CatalogOption, options: readonly CatalogOption[]): string {
  const unique = options.filter((o) => o.kind === option.kind).length === 1;
  return unique && option.kind !== 'other' ? option.kind : option.id;
}

function chooseOption(detail: CatalogDetail, via: string | undefined): CatalogOption {
  if (detail.options.length === 0)
    throw new UserError(`${detail.entry.name} names no package or remote endpoint Switchboard could run`, {
      ...(detail.website ? { hint: `see ${detail.website}` } : {}),
    });
  if (via === undefined) {
    const chosen = detail.options.find((o) => o.id === detail.recommended) ?? detail.options[0];
    if (!chosen) throw new UserError(`${detail.entry.name} has nothing to install`);
    return chosen;
  }
  const found = detail.options.find((o) => o.id === via || viaName(o, detail.options) === via);
  if (!found)
    throw new UsageError(
      `${detail.entry.name} cannot run as "${displayText(via)}"; it offers: ${detail.options.map((o) => `--via ${viaName(o, detail.options)}`).join(', ')}`,
    );
  return found;
}

function fieldByKey(option: CatalogOption, key: string, flag: string): CatalogField {
  const exact = option.fields.find((f) => f.key === key);
  if (exact) return exact;
  const loose = option.fields.filter((f) => f.key.toLowerCase() === key.toLowerCase());
  if (loose.length === 1 && loose[0]) return loose[0];
  throw new UsageError(
    `${flag}: "${displayText(key)}" is not one of its settings` +
      (option.fields.length ? ` (${option.fields.map((f) => f.key).join(', ')})` : ' (it takes none)'),
  );
}

/**
 * Secrets given on stdin: `KEY=VALUE` lines (KEY as `catalog show` lists them); with one secret to
 * give, the whole of stdin may be its value (`printf %s "$TOKEN" | …`).
 */
function secretsFromStdin(
  text: string,
  option: CatalogOption,
  fields: CatalogField[],
): Record<string, string> {
  const out: Record<string, string> = {};
  const only = fields.length === 1 ? fields[0] : undefined;
  const body = text.replace(/\r?\n$/, '');
  if (only && !body.startsWith(`${only.key}=`)) {
    if (body) out[only.id] = body;
    return out;
  }
  for (const line of text.split(/\r?\n/)) {
    if (line.trim() === '') continue;
    const eq = line.indexOf('=');
    if (eq <= 0) throw new UsageError('stdin: give each secret as KEY=VALUE on a line of its own');
    const field = fieldByKey(option, line.slice(0, eq), 'stdin');
    if (!field.secret)
      throw new UsageError(`stdin: ${field.key} is not a secret; give it with --set ${field.key}=…`);
    out[field.id] = line.slice(eq + 1);
  }
  return out;
}

/** A dry run needs to know which secrets were given, never what they are. */
function masked(secrets: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(secrets).map(([id, value]) => [id, value ? '•' : '']));
}

function issueWords(issue: { field: string; message: string }, option: CatalogOption): string {
  if (issue.field === 'name') return `${issue.message} (--name N)`;
  const field = option.fields.find((f) => f.id === issue.field);
  if (!field) return issue.message;
  return field.secret
    ? `${issue.message} (give it at the prompt, or on stdin as ${field.key}=…)`
    : `${issue.message} (--set ${field.key}=…)`;
}

function oneLine(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

function shellWord(word: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}

async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  return Buffer.concat(chunks).toString('utf8');
}
