import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { writeFileAtomic } from '../fs/atomic-write.ts';

/** One answer the registry gave, as kept in the home. */
export interface CachedAnswer {
  /** the request's full URL (registry address, path and query) */
  url: string;
  /** when the registry gave it (ms since epoch) */
  fetchedAt: number;
  /** the answer's JSON, as it passed the outer schema check */
  body: unknown;
}

const CachedAnswerSchema = z.object({ url: z.string(), fetchedAt: z.number(), body: z.unknown() });

/** Enough for every search a person makes in a while; older answers go first. */
const MAX_FILES = 400;

/**
 * The registry's answers in `<home>/cache/registry/`, one file per request URL (named by its
 * SHA-256), so the catalog can show what it last saw when the registry is down or the laptop is
 * offline, with the age of what it shows. Answers of different registries never mix: the URL names
 * the registry.
 */
export class RegistryCache {
  readonly #dir: string;

  constructor(dir: string) {
    this.#dir = dir;
  }

  get(url: string): CachedAnswer | undefined {
    return this.#read(this.#file(url));
  }

  put(url: string, body: unknown, fetchedAt: number): void {
    // Owner-only like the rest of the home: what a person searched for is theirs.
    writeFileAtomic(this.#file(url), JSON.stringify({ url, fetchedAt, body }) + '\n', { mode: 0o600 });
    this.#prune();
  }

  /** Every cached answer of one registry (its base address), newest first. */
  answersOf(registry: string): CachedAnswer[] {
    const prefix = `${registry}/`;
    return this.#files()
      .map((file) => this.#read(join(this.#dir, file)))
      .filter((a): a is CachedAnswer => a !== undefined && a.url.startsWith(prefix))
      .sort((a, b) => b.fetchedAt - a.fetchedAt);
  }

  #file(url: string): string {
    return join(this.#dir, `${createHash('sha256').update(url).digest('hex')}.json`);
  }

  #read(file: string): CachedAnswer | undefined {
    try {
      const parsed = CachedAnswerSchema.safeParse(JSON.parse(readFileSync(file, 'utf8')));
      // A damaged file is as good as none: the next answer replaces it.
      return parsed.success
        ? { url: parsed.data.url, fetchedAt: parsed.data.fetchedAt, body: parsed.data.body }
        : undefined;
    } catch {
      return undefined;
    }
  }

  #files(): string[] {
    try {
      return readdirSync(this.#dir).filter((f) => /^[0-9a-f]{64}\.json$/.test(f));
    } catch {
      return [];
    }
  }

  #prune(): void {
    const files = this.#files();
    if (files.length <= MAX_FILES) return;
    const byAge = files
      .map((file) => {
        try {
          return { file, mtime: statSync(join(this.#dir, file)).mtimeMs };
        } catch {
          return { file, mtime: 0 };
        }
      })
      .sort((a, b) => a.mtime - b.mtime);
    for (const { file } of byAge.slice(0, files.length - MAX_FILES))
      rmSync(join(this.#dir, file), { force: true });
  }
}
