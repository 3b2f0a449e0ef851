import { hash, randomBytes, timingSafeEqual } from 'node:crypto';
import {
  chmodSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  watch,
  type FSWatcher,
} from 'node:fs';
import { join } from 'node:path';
import type { TokenCreated, TokenInfo } from '../../../shared/api.ts';
import { EDITOR_TOKENS_DIR, TOKEN_NAME_PATTERN } from '../../../shared/bridge.ts';
import { describeError, UserError } from '../errors.ts';
import { writeFileAtomic } from '../fs/atomic-write.ts';
import { logToStderr, watchProblem } from '../fs/watch-problem.ts';
import { CONTROL_TOKEN, ensureToken } from './token-file.ts';

/** tokens/editors/<name>: where an editor's (or any named client's) bridge token lives. */
export function editorTokenFile(tokensDir: string, name: string): string {
  return join(tokensDir, EDITOR_TOKENS_DIR, name);
}

/** Throws a UserError unless `name` can name an editor token (and so a file). */
export function checkTokenName(name: string): void {
  if (!TOKEN_NAME_PATTERN.test(name)) {
    throw new UserError(`"${name}" cannot name a token`, {
      hint: 'use 1-32 lowercase letters, digits or dashes (e.g. zed, vscode, claude-desktop)',
    });
  }
  if (name === CONTROL_TOKEN)
    throw new UserError('"control" is reserved for the control API token', { hint: 'choose another name' });
}

/** Parses `Authorization: Bearer <token>` (scheme case-insensitive, RFC 6750); undefined if absent. */
function bearerToken(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const match = /^bearer +([A-Za-z0-9._~+/=-]{1,512}) *$/i.exec(header);
  return match?.[1];
}

function digest(token: string): Buffer {
  return hash('sha256', token, 'buffer');
}

/**
 * The bridge's bearer tokens, one file each under the home's tokens/ folder (folder 0700, files 0600,
 * 256 random bits, base64url):
 *
 * - `tokens/control`: the control API's token (`/api/...`), used by the CLI and the headless UI;
 * - `tokens/editors/<name>`: one per editor or client (`zed`, `claude-desktop`, or any
 *   `[a-z0-9-]{1,32}` a person picks), accepted on `/mcp` and `/mcp/<server>` only.
 *
 * `create` always issues a fresh token, replacing (rotating) any previous one of that name: a token is
 * shown once, so "create again" is how a lost token is replaced. `ensure` is the idempotent variant
 * for code that only needs a token to exist (editor sync).
 *
 * The bridge verifies against an in-memory copy (SHA-256 digests compared in constant time), refreshed
 * on every change made through this store and, with `watch`, on changes to the folder by anyone else
 * (a token file deleted by hand, or the CLI working on the files while no instance was found). When
 * the system refuses to watch the folder, it is read on a timer and on an unknown token instead.
 */
export class TokenStore {
  readonly dir: string;
  readonly #editorsDir: string;
  #control: Buffer | undefined;
  #editors: { name: string; digest: Buffer }[] = [];
  /** changes whenever the editor tokens do: what a connection proved before no longer counts */
  #generation = 0;
  /** per keep-alive connection: the header it last proved an editor token with, and when */
  readonly #proven = new WeakMap<object, { header: string; generation: number; name: string }>();
  #watcher: FSWatcher | undefined;
  #controlWatcher: FSWatcher | undefined;
  #reloadTimer: NodeJS.Timeout | undefined;
  /** set when the folder could not be watched: it is read again on this timer instead */
  #pollTimer: NodeJS.Timeout | undefined;
  readonly #rotationListeners = new Set<(names: string[]) => void>();
  readonly #invalidationListeners = new Set<(names: string[]) => void>();

  constructor(
    tokensDir: string,
    options: {
      watch?: boolean;
      /** where a folder that cannot be watched is said (default: serve's log, stderr) */
      log?: (line: string) => void;
      /** how often an unwatchable folder is read again */
      pollMs?: number;
    } = {},
  ) {
    this.dir = tokensDir;
    this.#editorsDir = join(tokensDir, EDITOR_TOKENS_DIR);
    if (options.watch) {
      this.#ensureDirs();
      this.reload();
      try {
        this.#watch();
      } catch (err) {
        // fs.watch throws at once when the system refuses (inotify's limit reached, ENOSPC): serve
        // runs on, reading the folder on a timer and again whenever a token is not recognised, so a
        // token written by the CLI is honoured at once and a deleted one stops within pollMs.
        this.close();
        const pollMs = options.pollMs ?? 2_000;
        const log = options.log ?? logToStderr;
        log(
          watchProblem(
            `the token folder ${this.dir}`,
            err,
            `tokens written or deleted there by another program are read again every ${pollMs / 1000} s instead`,
          ),
        );
        this.#pollTimer = setInterval(() => {
          try {
            this.reload();
          } catch (e) {
            log(`cannot read the token folder ${this.dir} again: ${describeError(e)}`);
          }
        }, pollMs);
        this.#pollTimer.unref();
      }
    }
  }

  #watch(): void {
    this.#watcher = watch(this.#editorsDir, { persistent: false }, () => this.#scheduleReload());
    this.#watcher.on('error', () => this.#scheduleReload());
    // tokens/control replaced or deleted by hand: the old control token stops working too.
    this.#controlWatcher = watch(this.dir, { persistent: false }, (_event, file) => {
      if (file === CONTROL_TOKEN) this.#scheduleReload();
    });
    this.#controlWatcher.on('error', () => this.#scheduleReload());
  }

  /** The control API token, created on first use. */
  controlToken(): string {
    this.#ensureDirs();
    const token = ensureToken(this.dir, CONTROL_TOKEN);
    this.#control = digest(token);
    return token;
  }

  /** Issues a new token for `name`, replacing any previous one (which stops working at once). */
  create(name: string): TokenCreated {
    checkTokenName(name);
    this.#ensureDirs();
    const file = editorTokenFile(this.dir, name);
    const replaced = this.#read(name) !== undefined;
    const token = randomBytes(32).toString('base64url');
    writeFileAtomic(file, token + '\n', { mode: 0o600 });
    chmodSync(file, 0o600);
    this.reload();
    return { name, token, file, replaced };
  }

  /** The token for `name` if it has one (never issues one). */
  get(name: string): string | undefined {
    checkTokenName(name);
    return this.#read(name);
  }

  /** The token for `name`, issuing one if there is none yet (never rotates). */
  ensure(name: string): string {
    checkTokenName(name);
    return this.#read(name) ?? this.create(name).token;
  }

  /** Every editor token's name, issue time and file; never the token values. */
  list(): TokenInfo[] {
    let names: string[];
    try {
      names = readdirSync(this.#editorsDir);
    } catch {
      return [];
    }
    const result: TokenInfo[] = [];
    for (const name of names.sort()) {
      if (!TOKEN_NAME_PATTERN.test(name)) continue; // temp files of an atomic write, stray files
      const file = editorTokenFile(this.dir, name);
      try {
        const stat = statSync(file);
        if (stat.isFile()) result.push({ name, createdAt: Math.round(stat.mtimeMs), file });
      } catch {
        // removed meanwhile
      }
    }
    return result;
  }

  /** Deletes `name`'s token; the bridge refuses it from now on. False if there was none. */
  revoke(name: string): boolean {
    checkTokenName(name);
    const file = editorTokenFile(this.dir, name);
    const existed = this.#read(name) !== undefined;
    rmSync(file, { force: true });
    this.reload();
    return existed;
  }

  /** True iff the header carries the control API token. */
  verifyControl(authorization: string | undefined): boolean {
    const given = bearerToken(authorization);
    if (given === undefined) return false;
    const control = (this.#control ??= digest(ensureToken(this.dir, CONTROL_TOKEN)));
    return timingSafeEqual(digest(given), control);
  }

  /**
   * The name of the editor token the header carries, or undefined. Compares against every token
   * without stopping early, so the time taken does not depend on which (if any) matched.
   *
   * With `connection` (the request's socket), a header that connection already proved a token with
   * is taken without hashing again until the tokens change: an editor sends the same header on every
   * request of a keep-alive connection, and this runs on every call. The header is compared only with
   * what the same connection sent before, so the comparison's timing tells its sender nothing new.
   */
  verifyEditor(authorization: string | undefined, connection?: object): string | undefined {
    const proven = connection && this.#proven.get(connection);
    if (proven && proven.header === authorization && proven.generation === this.#generation)
      return proven.name;
    const given = bearerToken(authorization);
    if (given === undefined) return undefined;
    const wanted = digest(given);
    let found = this.#match(wanted);
    // Unwatched folder: a token written since the last read (the CLI's) is read now, not refused.
    if (found === undefined && this.#pollTimer) {
      this.reload();
      found = this.#match(wanted);
    }
    if (connection && authorization && found !== undefined)
      this.#proven.set(connection, { header: authorization, generation: this.#generation, name: found });
    return found;
  }

  /** The name of the editor token with this digest; compares against all of them (constant time). */
  #match(wanted: Buffer): string | undefined {
    let found: string | undefined;
    for (const entry of this.#editors) {
      if (timingSafeEqual(wanted, entry.digest) && found === undefined) found = entry.name;
    }
    return found;
  }

  /** Re-reads every editor token from disk into the in-memory copy the bridge verifies against. */
  reload(): void {
    const editors: { name: string; digest: Buffer }[] = [];
    for (const { name } of this.list()) {
      const token = this.#read(name);
      if (token) editors.push({ name, digest: digest(token) });
    }
    const before = new Map(this.#editors.map((e) => [e.name, e.digest]));
    this.#editors = editors;
    this.#generation += 1;
    const rotated = editors
      .filter((e) => {
        const was = before.get(e.name);
        return was !== undefined && !was.equals(e.digest);
      })
      .map((e) => e.name);
    if (rotated.length) for (const listener of this.#rotationListeners) listener(rotated);
    const now = new Set(editors.map((e) => e.name));
    const invalid = [...[...before.keys()].filter((name) => !now.has(name)), ...rotated];
    if (this.#reloadControl()) invalid.push(CONTROL_TOKEN);
    if (invalid.length) for (const listener of this.#invalidationListeners) listener(invalid);
  }

  /** Re-reads tokens/control if it was read before (a deleted one is issued anew); true if it changed. */
  #reloadControl(): boolean {
    const was = this.#control;
    if (was === undefined) return false;
    this.#control = digest(ensureToken(this.dir, CONTROL_TOKEN));
    return !was.equals(this.#control);
  }

  /**
   * Calls `listener` with the names whose token stopped working: revoked, its file deleted, or
   * replaced by a new one (`control` for the control API's token), so what was opened with the old
   * one (event streams, MCP sessions) can be closed. Returns the unsubscribe function.
   */
  onInvalidated(listener: (names: string[]) => void): () => void {
    this.#invalidationListeners.add(listener);
    return () => this.#invalidationListeners.delete(listener);
  }

  /**
   * Calls `listener` with the names whose token was replaced by a new one (`token create` again, here
   * or by anyone writing the folder while watched), so what holds the old token can be updated.
   * Returns the unsubscribe function.
   */
  onRotated(listener: (names: string[]) => void): () => void {
    this.#rotationListeners.add(listener);
    return () => this.#rotationListeners.delete(listener);
  }

  close(): void {
    this.#watcher?.close();
    this.#watcher = undefined;
    this.#controlWatcher?.close();
    this.#controlWatcher = undefined;
    clearTimeout(this.#reloadTimer);
    clearInterval(this.#pollTimer);
  }

  #scheduleReload(): void {
    clearTimeout(this.#reloadTimer);
    this.#reloadTimer = setTimeout(() => this.reload(), 20);
    this.#reloadTimer.unref();
  }

  #read(name: string): string | undefined {
    try {
      const token = readFileSync(editorTokenFile(this.dir, name), 'utf8').trim();
      return token.length >= 32 ? token : undefined;
    } catch {
      return undefined;
    }
  }

  #ensureDirs(): void {
    for (const dir of [this.dir, this.#editorsDir]) {
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      chmodSync(dir, 0o700);
    }
  }
}
