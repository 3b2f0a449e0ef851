import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Clock } from '../clock.ts';
import { describeError } from '../errors.ts';
import { writeFileAtomic } from '../fs/atomic-write.ts';
import { ListsFileSchema, type ServerLists } from './server-lists.ts';

interface Entry {
  fingerprint: string;
  lists: ServerLists;
}

/**
 * Each server's lists from its last run (see ServerLists), in memory and in the home's cache
 * (cache/lists/<name>@<fingerprint>.json, owner-only), so that editors' list requests are answered
 * while the server is idle, also after Switchboard restarts. Keyed by fingerprint: lists a server
 * gave under another config are never served. A file is read once, when first needed; whether one
 * exists is known from its name alone.
 */
export class ListStore {
  readonly #dir: string | null;
  readonly #clock: Clock;
  /** by `name@fingerprint`; null: looked for, none */
  readonly #entries = new Map<string, Entry | null>();

  /** `dir` null keeps lists in memory only. */
  constructor(dir: string | null, clock: Clock) {
    this.#dir = dir;
    this.#clock = clock;
  }

  /** The server's lists if they were taken under this fingerprint. */
  get(name: string, fingerprint: string): ServerLists | undefined {
    const key = `${name}@${fingerprint}`;
    let entry = this.#entries.get(key);
    if (entry === undefined) this.#entries.set(key, (entry = this.#read(name, fingerprint)));
    return entry?.lists;
  }

  /** Whether lists of this config are at hand (without reading them). */
  has(name: string, fingerprint: string): boolean {
    const entry = this.#entries.get(`${name}@${fingerprint}`);
    if (entry !== undefined) return entry !== null;
    return this.#dir !== null && existsSync(this.#file(name, fingerprint));
  }

  put(name: string, fingerprint: string, lists: ServerLists): void {
    const key = `${name}@${fingerprint}`;
    const same = this.get(name, fingerprint);
    // Each start lists again; the file is written only when something in it changed.
    if (same && JSON.stringify(same) === JSON.stringify(lists)) {
      this.#entries.set(key, { fingerprint, lists });
      return;
    }
    this.#drop(name);
    this.#entries.set(key, { fingerprint, lists });
    if (this.#dir === null) return;
    const file = { fingerprint, savedAt: this.#clock.now(), ...lists };
    try {
      writeFileAtomic(this.#file(name, fingerprint), JSON.stringify(file), { mode: 0o600 });
    } catch (err) {
      // Only the next start's first request pays: the server then runs to list again.
      console.error(`switchboard: could not save the lists of "${name}": ${describeError(err)}`);
    }
  }

  /** The server is gone from servers.json: its lists go too. */
  forget(name: string): void {
    this.#drop(name);
  }

  /** Every list of the server (of any config), in memory and on disk. */
  #drop(name: string): void {
    for (const key of [...this.#entries.keys()]) if (key.startsWith(`${name}@`)) this.#entries.delete(key);
    if (this.#dir === null) return;
    let files: string[];
    try {
      files = readdirSync(this.#dir);
    } catch {
      return;
    }
    for (const file of files) if (file.startsWith(`${name}@`)) rmSync(join(this.#dir, file), { force: true });
  }

  #read(name: string, fingerprint: string): Entry | null {
    if (this.#dir === null) return null;
    let text: string;
    try {
      text = readFileSync(this.#file(name, fingerprint), 'utf8');
    } catch {
      return null;
    }
    let parsed;
    try {
      parsed = ListsFileSchema.safeParse(JSON.parse(text));
    } catch {
      return null; // a damaged cache file: the server runs once to list again
    }
    if (!parsed.success || parsed.data.fingerprint !== fingerprint) return null;
    const { capabilities, serverInfo, instructions } = parsed.data;
    const { tools, prompts, resources, resourceTemplates } = parsed.data;
    const lists = { capabilities, serverInfo, instructions, tools, prompts, resources, resourceTemplates };
    return { fingerprint, lists: lists as unknown as ServerLists };
  }

  #file(name: string, fingerprint: string): string {
    return join(this.#dir ?? '', `${name}@${fingerprint}.json`);
  }
}
