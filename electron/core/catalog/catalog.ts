import { join } from 'node:path';
import {
  CatalogInstallRequestSchema,
  isRegistryName,
  REGISTRY_VERSION_PATTERN,
  RegistryListSchema,
  RegistryServerResponseSchema,
  type CatalogDetail,
  type CatalogFreshness,
  type CatalogInstallRequest,
  type CatalogInstallResult,
  type CatalogPage,
  type CatalogPlan,
  type CatalogRegistry,
  type CatalogSearchRequest,
  type CatalogServerRequest,
} from '../../../shared/catalog.ts';
import { displayText } from '../../../shared/display-text.ts';
import { serverNameProblem, validateServerConfig } from '../../../shared/server-validation.ts';
import type { z } from 'zod';
import { readServerValue, setServer } from '../config/edit.ts';
import { readServersFile } from '../config/servers-file.ts';
import { UserError } from '../errors.ts';
import { serverDataDir, type HomePaths } from '../home.ts';
import { findLiteralSecrets } from '../secrets/detect.ts';
import type { Keychain } from '../secrets/keychain.ts';
import { defaultSecretName } from '../secrets/secret-names.ts';
import { secretNamesUsed, secretReference } from '../secrets/references.ts';
import { storeLiteralSecrets } from '../secrets/store-literals.ts';
import { serverEntry } from '../server-entry.ts';
import type { AppStateStore } from '../trust/app-state.ts';
import { describeLaunch, describeReferences } from '../trust/command-line.ts';
import { resolveCommand, type CommandLookup } from '../trust/resolve-command.ts';
import {
  borrowedByEntry,
  buildConfig,
  fieldIssue,
  installOptions,
  refusedAsFilled,
  type OptionPlan,
} from './install-options.ts';
import { checkRegistryUrl, registryAddress } from './registry-address.ts';
import { RegistryCache } from './registry-cache.ts';
import { RegistryClient, RegistryError } from './registry-client.ts';
import { catalogEntry, clip, readServerResponse, webLink, type ServerDoc } from './server-doc.ts';
import { compareNames } from '../text-order.ts';

export interface CatalogOptions {
  home: HomePaths;
  state: Pick<AppStateStore, 'registryUrl' | 'setRegistryUrl'>;
  /** SWITCHBOARD_REGISTRY_URL is read from here */
  env: NodeJS.ProcessEnv;
  keychain: Keychain;
  /** how commands are found, as for servers (the runtimes' paths, the preview's resolved command) */
  lookup: (cwd: string | undefined) => CommandLookup;
  fetch?: typeof fetch;
  now?: () => number;
  /** within this age the cache answers without asking the registry (default 5 minutes) */
  freshMs?: number;
  timeoutMs?: number;
}

/** An install that cannot go ahead: the plan says why (at fields, or with the option). */
export class CatalogInstallError extends UserError {
  readonly plan: CatalogPlan;
  constructor(plan: CatalogPlan) {
    const first = plan.problems[0] ?? plan.issues[0]?.message ?? 'it cannot be installed as given';
    super(`"${plan.name}" was not added: ${first}`);
    this.name = 'CatalogInstallError';
    this.plan = plan;
  }
}

interface Fetched<T> {
  body: T;
  freshness: CatalogFreshness;
}

/**
 * The catalog: search the MCP Registry, show what a server needs and how it runs, and install it as
 * a servers.json entry that waits for approval, with its secrets put in the keychain first. The
 * registry's answers are cached in the home (cache/registry/), so the catalog still shows what it
 * last saw, with its age, when the registry is down or the laptop is offline.
 */
export class Catalog {
  readonly #options: CatalogOptions;
  readonly #cache: RegistryCache;
  readonly #now: () => number;
  readonly #freshMs: number;

  constructor(options: CatalogOptions) {
    this.#options = options;
    this.#cache = new RegistryCache(join(options.home.root, 'cache', 'registry'));
    this.#now = options.now ?? Date.now;
    this.#freshMs = options.freshMs ?? 5 * 60_000;
  }

  registry(): CatalogRegistry {
    return registryAddress(this.#options.env, this.#options.state.registryUrl());
  }

  /**
   * The registry one request asks: the address it brings (the SWITCHBOARD_REGISTRY_URL of the CLI
   * that sent it, which wins there as in this process's own environment), else registry().
   */
  #registryOf(request: { registry?: string | undefined }): CatalogRegistry {
    const own = this.registry();
    const given = request.registry?.trim();
    return given ? { ...own, url: given, source: 'env' } : own;
  }

  /** Saves the registry address (null: back to the official one); the environment still wins. */
  setRegistry(url: string | null): CatalogRegistry {
    this.#options.state.setRegistryUrl(url === null || url.trim() === '' ? undefined : checkRegistryUrl(url));
    return this.registry();
  }

  async search(request: CatalogSearchRequest): Promise<CatalogPage> {
    const search = (request.search ?? '').trim();
    const registry = this.#registryOf(request);
    const client = this.#client(registry);
    const url = client.listUrl(search, request.cursor);
    try {
      const { body, freshness } = await this.#fetch(
        registry,
        url,
        RegistryListSchema,
        async () => (await client.list(search, request.cursor)).body,
        request.refresh === true,
      );
      let skipped = 0;
      const entries = [];
      for (const item of body.servers) {
        const read = readServerResponse(item);
        if (read.ok) entries.push(catalogEntry(read.doc));
        else skipped++;
      }
      const next = body.metadata?.nextCursor;
      return { ...freshness, search, entries, nextCursor: next ? next : null, skipped };
    } catch (err) {
      if (!(err instanceof RegistryError) || request.cursor) throw err;
      // Offline, a search still finds what the cache holds from earlier answers.
      const local = this.#searchCache(registry, client.baseUrl, search);
      if (!local) throw err;
      return { ...local, problem: err.display };
    }
  }

  async detail(request: CatalogServerRequest): Promise<CatalogDetail> {
    const { doc, freshness } = await this.#document(
      this.#registryOf(request),
      request.name,
      request.version,
      request.refresh === true,
    );
    const plans = this.#plans(doc);
    const recommended = plans.find((p) => p.view.problem === null)?.view.id ?? plans[0]?.view.id ?? null;
    return {
      ...freshness,
      entry: catalogEntry(doc),
      statusMessage: doc.statusMessage ? displayText(clip(doc.statusMessage, 500)) : null,
      repository: webLink(doc.repositoryUrl),
      website: webLink(doc.websiteUrl),
      publishedAt: doc.publishedAt ?? null,
      options: plans.map((p) => ({
        ...p.view,
        notes: [...doc.problems.map((x) => `${x}.`), ...p.view.notes],
      })),
      recommended,
      suggestedName: this.#freeName(suggestedName(doc.name)),
    };
  }

  /**
   * Checks the answers and shows what would be written and run (dryRun), or adds the server to
   * servers.json, pending approval, with its secrets stored in the keychain first. `beforeWrite` runs
   * just before the file is written (the core notes where the server came from). Throws a
   * CatalogInstallError when it cannot be installed as given.
   */
  async install(
    input: CatalogInstallRequest,
    beforeWrite?: (name: string) => void,
  ): Promise<CatalogInstallResult> {
    const request = CatalogInstallRequestSchema.parse(input);
    const { doc } = await this.#document(this.#registryOf(request), request.server, request.version, false);
    const plan = this.#plans(doc).find((p) => p.view.id === request.option);
    if (!plan)
      throw new UserError(
        `${request.server} has no way to run called "${displayText(clip(request.option, 40))}"`,
      );
    const name = request.name;
    const issues: { field: string; message: string }[] = [];
    const problems: string[] = plan.view.problem ? [plan.view.problem] : [];
    const nameProblem = serverNameProblem(name);
    if (nameProblem) issues.push({ field: 'name', message: nameProblem });
    else if (readServerValue(this.#options.home.serversFile, name) !== undefined)
      issues.push({ field: 'name', message: `a server named "${name}" already exists; choose another name` });

    // Secrets: each under <server>-<key> in the keychain (a name another server uses is not taken over).
    const keychain = this.#options.keychain;
    const usedElsewhere = this.#secretNamesInUse();
    const answers = new Map<string, string>();
    const secrets: CatalogPlan['secrets'] = [];
    const toStore: { name: string; value: string }[] = [];
    for (const field of plan.view.fields) {
      if (!field.secret) {
        const given = request.values[field.id];
        const value = given ?? field.default ?? undefined;
        const issue = fieldIssue(field, value);
        if (issue) issues.push({ field: field.id, message: issue });
        if (value !== undefined && value !== '') answers.set(field.id, value);
        continue;
      }
      const base = defaultSecretName(nameProblem ? 'server' : name, field.key);
      const given = request.secrets[field.id] ?? '';
      // An optional secret left empty needs no keychain: were it unreachable, the server is added
      // without it (only what really needs a secret may need the keychain).
      const optionalAndEmpty = !given && !field.required && !field.default;
      let keychainName = base;
      let stored = false;
      try {
        keychainName = await this.#secretName(base, usedElsewhere);
        stored = (await keychain.get(keychainName)) !== undefined;
      } catch (err) {
        if (!optionalAndEmpty) throw err;
      }
      secrets.push({ field: field.id, name: keychainName, stored });
      // A dry run gets a stand-in for what was typed: only whether one was given can be checked.
      const issue =
        given && request.dryRun
          ? undefined
          : !given && stored
            ? undefined
            : fieldIssue(field, given || (field.default ?? ''));
      if (issue) issues.push({ field: field.id, message: issue });
      const value = given || (stored ? undefined : (field.default ?? undefined));
      if (value !== undefined && value !== '') toStore.push({ name: keychainName, value });
      if (given || stored || value) answers.set(field.id, secretReference(keychainName));
    }

    // The entry as built, then with any literal secret in it moved to references: planned against a
    // keychain that is only read, and done for real only once the install goes ahead.
    const built = plan.template ? buildConfig(plan.template, (id) => answers.get(id)) : {};
    // Refused on what the values make once filled in, not only on the entry's parts.
    const secretFields = new Set(secrets.map((s) => s.field));
    const borrowed =
      plan.template &&
      borrowedByEntry(plan.template, (id) =>
        secretFields.has(id) ? (answers.has(id) ? '' : undefined) : answers.get(id),
      );
    if (borrowed) problems.push(borrowed);
    const refusedFilled = plan.template ? refusedAsFilled(plan.template, (id) => answers.get(id)) : undefined;
    if (refusedFilled) problems.push(refusedFilled);
    const owner = nameProblem ? 'server' : name;
    const sweep = async (target: Keychain): Promise<Record<string, unknown>> => {
      const copy = structuredClone(built);
      // A token typed into a field not marked secret goes to the keychain too, as with `add`.
      const findings = findLiteralSecrets(copy as Parameters<typeof findLiteralSecrets>[0]);
      if (findings.length) await storeLiteralSecrets(owner, copy, findings, target);
      return copy;
    };
    const config = await sweep(readOnly(keychain));
    let lines: string[] = [];
    let references: string[] = [];
    if (plan.template) {
      const checked = validateServerConfig(config);
      if (checked.ok) {
        const entry = serverEntry(nameProblem ? 'server' : name, checked.config, this.#options.lookup);
        lines = describeLaunch(entry.launch, serverDataDir(this.#options.home, entry.name));
        references = describeReferences(entry.launch);
      } else if (issues.length === 0) {
        const issue = checked.issues[0];
        problems.push(
          `the entry it makes is not valid${issue?.path.length ? ` (${issue.path.join('.')})` : ''}: ${issue?.message ?? 'invalid'}`,
        );
      }
    }
    const result: CatalogPlan = { name, config, lines, references, secrets, issues, problems };
    if (request.dryRun) return { installed: false, plan: result };
    if (issues.length || problems.length) throw new CatalogInstallError(result);
    for (const secret of toStore) await keychain.set(secret.name, secret.value);
    const entry = await sweep(keychain);
    beforeWrite?.(name);
    setServer(this.#options.home.serversFile, name, entry);
    return { installed: true, plan: result };
  }

  // ---- the registry, through the cache --------------------------------------------------------------

  #client(registry: CatalogRegistry): RegistryClient {
    return new RegistryClient({
      baseUrl: checkRegistryUrl(registry.url, registry.source),
      ...(this.#options.fetch ? { fetch: this.#options.fetch } : {}),
      ...(this.#options.timeoutMs ? { timeoutMs: this.#options.timeoutMs } : {}),
    });
  }

  /**
   * A fresh cached answer, else the registry's (then cached), else — when the registry cannot be
   * used — the cached one whatever its age, with why. "Not found" is an answer, not an outage.
   */
  async #fetch<T>(
    from: CatalogRegistry,
    url: string,
    schema: z.ZodType<T>,
    ask: () => Promise<T>,
    refresh: boolean,
  ): Promise<Fetched<T>> {
    const registry = from.url;
    const cached = this.#cache.get(url);
    const usable = cached ? schema.safeParse(cached.body) : undefined;
    const now = this.#now();
    if (
      cached &&
      usable?.success &&
      !refresh &&
      now - cached.fetchedAt < this.#freshMs &&
      cached.fetchedAt <= now
    ) {
      return {
        body: usable.data,
        freshness: { registry, fetchedAt: cached.fetchedAt, fromCache: true, problem: null },
      };
    }
    try {
      const body = await ask();
      this.#cache.put(url, body, now);
      return { body, freshness: { registry, fetchedAt: now, fromCache: false, problem: null } };
    } catch (err) {
      if (!(err instanceof RegistryError) || err.notFound || !cached || !usable?.success) throw err;
      return {
        body: usable.data,
        freshness: { registry, fetchedAt: cached.fetchedAt, fromCache: true, problem: err.display },
      };
    }
  }

  async #document(
    registry: CatalogRegistry,
    name: string,
    version: string | undefined,
    refresh: boolean,
  ): Promise<{ doc: ServerDoc; freshness: CatalogFreshness }> {
    if (!isRegistryName(name))
      throw new UserError(`"${displayText(clip(name, 80))}" is not a registry server name`, {
        hint: 'registry names look like io.github.owner/server (switchboard catalog search TERM lists them)',
      });
    if (version !== undefined && version !== 'latest' && !REGISTRY_VERSION_PATTERN.test(version))
      throw new UserError(`"${displayText(clip(version, 40))}" is not a version`);
    const client = this.#client(registry);
    let fetched: Fetched<z.infer<typeof RegistryServerResponseSchema>>;
    try {
      fetched = await this.#fetch(
        registry,
        client.serverUrl(name, version),
        RegistryServerResponseSchema,
        async () => (await client.server(name, version)).body,
        refresh,
      );
    } catch (err) {
      if (!(err instanceof RegistryError) || err.notFound) throw err;
      // Offline: a list answer in the cache has the whole server.json too.
      const local = this.#cachedDocument(client.baseUrl, name, version);
      if (!local) throw err;
      return {
        doc: local.doc,
        freshness: {
          registry: registry.url,
          fetchedAt: local.fetchedAt,
          fromCache: true,
          problem: err.display,
        },
      };
    }
    const read = readServerResponse(fetched.body);
    if (!read.ok)
      throw new RegistryError(
        `the registry's entry for ${name} is not valid server.json (${displayText(clip(read.reason, 160))})`,
        {
          hint: 'there is nothing Switchboard can install from it; tell its publisher',
        },
      );
    if (read.doc.name !== name)
      throw new RegistryError(`the registry answered with ${read.doc.name} when asked for ${name}`, {
        hint: 'check the registry address in Settings',
      });
    return { doc: read.doc, freshness: fetched.freshness };
  }

  /** Every server the cache holds for this registry (newest answer first), as documents. */
  #cachedDocuments(base: string): { doc: ServerDoc; fetchedAt: number }[] {
    const seen = new Map<string, { doc: ServerDoc; fetchedAt: number }>();
    for (const answer of this.#cache.answersOf(base)) {
      const list = RegistryListSchema.safeParse(answer.body);
      const items = list.success ? list.data.servers : [answer.body];
      for (const item of items) {
        const read = readServerResponse(item);
        const key = read.ok ? `${read.doc.name}@${read.doc.version}` : undefined;
        if (read.ok && key && !seen.has(key)) seen.set(key, { doc: read.doc, fetchedAt: answer.fetchedAt });
      }
    }
    return [...seen.values()];
  }

  #cachedDocument(
    base: string,
    name: string,
    version: string | undefined,
  ): { doc: ServerDoc; fetchedAt: number } | undefined {
    return this.#cachedDocuments(base).find(
      (d) =>
        d.doc.name === name && (version === undefined || version === 'latest' || d.doc.version === version),
    );
  }

  #searchCache(
    registry: CatalogRegistry,
    base: string,
    search: string,
  ): Omit<CatalogPage, 'problem'> | undefined {
    const all = this.#cachedDocuments(base);
    if (all.length === 0) return undefined;
    const term = search.toLowerCase();
    const newest = new Map<string, { doc: ServerDoc; fetchedAt: number }>();
    for (const item of all) if (!newest.has(item.doc.name)) newest.set(item.doc.name, item);
    const matches = [...newest.values()]
      .filter(
        ({ doc }) =>
          !term || [doc.name, doc.title ?? '', doc.description].some((t) => t.toLowerCase().includes(term)),
      )
      .sort((a, b) => compareNames(a.doc.name, b.doc.name));
    return {
      registry: registry.url,
      // The age of the oldest answer shown: nothing on the page is older than it says.
      fetchedAt: Math.min(...(matches.length ? matches : all).map((m) => m.fetchedAt)),
      fromCache: true,
      search,
      entries: matches.map(({ doc }) => catalogEntry(doc)),
      nextCursor: null,
      skipped: 0,
    };
  }

  // ---- helpers ----------------------------------------------------------------------------------------

  #plans(doc: ServerDoc): OptionPlan[] {
    const lookup = this.#options.lookup(undefined);
    return installOptions(doc, { findRuntime: (command) => resolveCommand(command, lookup) });
  }

  #freeName(base: string): string {
    const file = this.#options.home.serversFile;
    for (let n = 1; n < 100; n++) {
      const suffix = n === 1 ? '' : `-${n}`;
      const candidate = base.slice(0, 48 - suffix.length) + suffix;
      if (readServerValue(file, candidate) === undefined) return candidate;
    }
    return base;
  }

  /** Keychain names the servers already in servers.json use: a new server does not take them over. */
  #secretNamesInUse(): Set<string> {
    const result = readServersFile(this.#options.home.serversFile);
    if (!result.ok) return new Set();
    return new Set([...result.servers.values()].flatMap((config) => secretNamesUsed(config)));
  }

  async #secretName(base: string, used: ReadonlySet<string>): Promise<string> {
    if (!used.has(base)) return base;
    for (let n = 2; n < 100; n++) {
      const suffix = `-${n}`;
      const candidate = base.slice(0, 64 - suffix.length) + suffix;
      if (!used.has(candidate) && (await this.#options.keychain.get(candidate)) === undefined)
        return candidate;
    }
    throw new UserError(`no free keychain name for ${base}`, {
      hint: 'remove unused secrets: switchboard secret list / rm',
    });
  }
}

/** "io.github.upstash/context7" → "context7": a servers.json name (letters, digits, - and _). */
export function suggestedName(registryName: string): string {
  const last = registryName.slice(registryName.lastIndexOf('/') + 1);
  const cleaned = last
    .replace(/[^A-Za-z0-9_-]+/g, '-')
    .replace(/-{2,}/g, '-')
    .replace(/^[-_]+|[-_]+$/g, '')
    .slice(0, 48);
  return cleaned || 'server';
}

/** A keychain that reads but never writes: a dry run must show the names a real run would pick. */
function readOnly(keychain: Keychain): Keychain {
  return {
    get: (name) => keychain.get(name),
    set: async () => undefined,
    delete: async () => false,
    list: () => keychain.list(),
    held: (name, value) => keychain.held(name, value),
  };
}
