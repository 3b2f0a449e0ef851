import { z } from 'zod';
import { PackumentSchema, type PackumentSource, type PackumentView } from './npm-lock-current.ts';
import { npmSettings } from './npm-in-process.ts';
import type { NpmTools } from './npm-resolve.ts';
import { getJson } from './registry-get.ts';
import { runTool } from './run-tool.ts';

/** How long npm's settings are reused: one `outdated` run asks for them once. */
const SETTINGS_REUSE_MS = 10_000;

/** npm's abbreviated packument (what npm itself resolves with), else the full one. */
const ABBREVIATED = 'application/vnd.npm.install-v1+json; q=1.0, application/json; q=0.8';

const NpmConfigSchema = z
  .object({
    registry: z.string(),
    proxy: z.string().nullable().optional(),
    'https-proxy': z.string().nullable().optional(),
    httpsProxy: z.string().nullable().optional(),
    offline: z.boolean().optional(),
  })
  .catchall(z.unknown());

/** Where npm fetches a package's metadata from: its registry, a scope's own, or none we can reach. */
interface Registries {
  registry: string;
  scopes: Map<string, string>;
}

/**
 * Packuments read straight from the registry npm is set to use (one `npm config list` per run, one
 * request per package at a time, shared by the servers checked side by side), for `outdated`'s quick
 * look. Only what npm itself would reach without help: with a proxy or offline configured, nothing is
 * fetched (npm does the whole check). Requests carry no credentials: a registry that wants them answers
 * 401 and that server is checked by npm, with the person's settings.
 */
export class NpmRegistryView {
  #registries: { at: number; value: Promise<Registries | undefined> } | undefined;
  readonly #docs = new Map<string, Promise<PackumentView | undefined>>();

  packuments(tools: NpmTools): PackumentSource {
    return (name) => this.#packument(tools, name, ABBREVIATED);
  }

  /**
   * A package's publish dates and `latest` tag (the full packument: only it has `time`), or undefined
   * when the registry would not say here (then `npm view` asks, with the person's settings).
   */
  async about(
    tools: NpmTools,
    name: string,
  ): Promise<{ time: Record<string, string>; latest: string | null } | undefined> {
    const doc = await this.#packument(tools, name, 'application/json');
    if (!doc) return undefined;
    const time: Record<string, string> = {};
    for (const [k, v] of Object.entries(doc.time ?? {})) if (typeof v === 'string') time[k] = v;
    return { time, latest: doc['dist-tags']?.latest ?? null };
  }

  async #packument(tools: NpmTools, name: string, accept: string): Promise<PackumentView | undefined> {
    const registries = await this.#settings(tools);
    if (!registries) return undefined;
    const scope = name.startsWith('@') ? name.slice(0, name.indexOf('/')) : '';
    const base = registries.scopes.get(scope) ?? registries.registry;
    const url = `${base.endsWith('/') ? base : `${base}/`}${name.replace('/', '%2f')}`;
    // Shared by the servers checked side by side, never kept once answered: a release published a
    // moment ago must be seen by the next check.
    const key = `${accept}\0${url}`;
    const running = this.#docs.get(key);
    if (running) return running;
    const value = fetchPackument(url, accept).finally(() => this.#docs.delete(key));
    this.#docs.set(key, value);
    return value;
  }

  #settings(tools: NpmTools): Promise<Registries | undefined> {
    if (this.#registries && Date.now() - this.#registries.at < SETTINGS_REUSE_MS)
      return this.#registries.value;
    const value = readRegistries(tools);
    this.#registries = { at: Date.now(), value };
    return value;
  }
}

async function readRegistries(tools: NpmTools): Promise<Registries | undefined> {
  try {
    // In this process when the person's npm can be loaded here (a process less), else `npm config list`.
    const settings = tools.loadsNpm
      ? await npmSettings(tools, tools.staging, ['config', 'list']).catch(() => undefined)
      : undefined;
    if (settings) return registriesOf(settings.flat, 'httpsProxy');
    const { stdout } = await runTool(
      {
        command: tools.npm,
        args: [...tools.npmArgs, 'config', 'list', '--json'],
        cwd: tools.staging,
        env: tools.env,
        timeoutMs: 60_000,
      },
      'reading npm settings',
    );
    return registriesOf(JSON.parse(stdout), 'https-proxy');
  } catch {
    return undefined;
  }
}

/** The registries npm's settings name (`npm config list`'s keys, or npm's flattened ones). */
function registriesOf(settings: unknown, httpsProxy: 'https-proxy' | 'httpsProxy'): Registries | undefined {
  const config = NpmConfigSchema.parse(settings);
  if (config.proxy || config[httpsProxy] || config.offline) return undefined;
  const scopes = new Map<string, string>();
  for (const [key, value] of Object.entries(config)) {
    const scope = /^(@[^:]+):registry$/.exec(key)?.[1];
    if (scope && typeof value === 'string') scopes.set(scope, value);
  }
  return { registry: config.registry, scopes };
}

async function fetchPackument(url: string, accept: string): Promise<PackumentView | undefined> {
  if (!/^https?:\/\//.test(url)) return undefined;
  try {
    const parsed = PackumentSchema.safeParse(await getJson(url, accept, 20_000));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}
