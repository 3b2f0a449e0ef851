import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { displayText } from '../../../shared/display-text.ts';
import { isRemote } from '../../../shared/schema/servers.ts';
import type { ServerOrigin, ServerSourceSchema, SwitchboardEdit } from '../../../shared/schema/state.ts';
import type { z } from 'zod';
import { formatProblem, readServersFile, type ConfigProblem } from '../config/servers-file.ts';
import { UserError } from '../errors.ts';
import { serverDataDir, type HomePaths } from '../home.ts';
import { serverEntry, type ServerEntry } from '../server-entry.ts';
import type { AppStateStore } from '../trust/app-state.ts';
import { keptWithout } from '../trust/departed-projects.ts';
import { configHash } from '../trust/fingerprint.ts';
import type { CommandLookup } from '../trust/resolve-command.ts';
import { recordSource, withEditRecorded } from './source-record.ts';

export type ServerSource = z.infer<typeof ServerSourceSchema>;

/** Where commands are looked up: the PATH `serve` uses, PATHEXT and the platform. */
export interface LookupOptions {
  commandPath: string | undefined;
  pathExt: string | undefined;
  platform: NodeJS.Platform;
}

/** What the rest of the composition does when the configured servers change. */
export interface ServerConfigHooks {
  /** servers that left a valid servers.json (their approval is gone already) */
  forgotten?(names: readonly string[]): void;
  /** an entry's command resolves elsewhere now: apply it (restart or hold it) */
  changed?(): void;
  /** servers.json changed on disk since it was read: read it again (and apply it when running) */
  reread?(): void;
}

/** Repositories' servers, beside servers.json's (projects/project-service.ts). */
export interface ProjectServers {
  servers(): ReadonlyMap<string, ServerEntry['config']>;
}

export interface ServerConfigOptions extends LookupOptions {
  home: HomePaths;
  state: AppStateStore;
  hooks?: ServerConfigHooks;
  projects?: ProjectServers | undefined;
}

/**
 * The configured servers (servers.json made into entries), its problems, how commands are looked up,
 * and where each config came from. Reading the file is all it does: applying it is the supervisor's.
 */
export class ServerConfig {
  readonly #home: HomePaths;
  readonly #state: AppStateStore;
  readonly #lookupOptions: LookupOptions;
  readonly #hooks: ServerConfigHooks;
  readonly #projects: ProjectServers | undefined;
  /** the project servers of the last load (which of the entries are not servers.json's) */
  #projectNames = new Set<string>();
  /** the servers of the last good servers.json: theirs win a name clash also while it has errors */
  #ownNames = new Set<string>();
  #entries = new Map<string, ServerEntry>();
  #problems: ConfigProblem[] = [];
  /** servers.json's text as last read, to tell whether it changed since */
  #loadedText: string | undefined;
  /**
   * where configs came from (UI, install link, import), by the hash of the entry noted (undefined:
   * noted before it was written); hand edits are the default
   */
  readonly #sources = new Map<string, { source: ServerSource; config: string | undefined }>();

  constructor(options: ServerConfigOptions) {
    this.#home = options.home;
    this.#state = options.state;
    this.#lookupOptions = {
      commandPath: options.commandPath,
      pathExt: options.pathExt,
      platform: options.platform,
    };
    this.#hooks = options.hooks ?? {};
    this.#projects = options.projects;
  }

  /** Reads servers.json. An invalid file keeps the last good servers in force and records the problems. */
  load(): void {
    const result = readServersFile(this.#home.serversFile);
    this.#loadedText = result.text;
    const projectServers = this.#projects?.servers() ?? new Map<string, ServerEntry['config']>();
    const own = (n: string) => this.#ownNames.has(n);
    // While servers.json is unusable the person's own servers stay as they were, but project servers
    // still follow their files (a changed entry must not keep running in its old form).
    const keepOwn = () =>
      (this.#entries = new Map([
        ...[...projectServers].filter(([n]) => !own(n)).map(([n, c]) => [n, this.entryOf(n, c)] as const),
        ...[...this.#entries].filter(([n]) => own(n)),
      ]));
    if (!result.ok) {
      this.#problems = result.problems;
      keepOwn();
      return;
    }
    const kept = [...this.#entries.keys()].filter(own).length;
    if (result.text.trim() === '' && kept > 0) {
      // An empty file is more likely a save in progress or a mistake than a wish to stop everything.
      this.#problems = [
        {
          message: `the file is empty; the ${kept} configured server(s) keep running. To remove them all, write {"mcpServers": {}}`,
          server: undefined,
          path: [],
          line: undefined,
          column: undefined,
        },
      ];
      keepOwn();
      return;
    }
    this.#problems = [];
    this.#ownNames = new Set(result.servers.keys());
    // The pins of approved package runs; an unreadable state.json pins nothing (every trust decision
    // then says what is wrong with it).
    let approvals: ReturnType<AppStateStore['read']>['approvals'] = {};
    try {
      approvals = this.#state.read().approvals;
    } catch {
      approvals = {};
    }
    // A project server never shadows one of the person's own (its name has "--", theirs may too).
    this.#entries = new Map(
      [...projectServers, ...result.servers].map(([name, config]) => [
        name,
        serverEntry(name, config, this.lookup, approvals[name]?.config, this.#home.store),
      ]),
    );
    // A server removed from a valid file loses its approval: adding it back asks again. A missing or
    // empty file forgets nothing (more likely a mistake or a save in progress than a wish).
    // Project servers that left (project removed, entry gone) lose theirs even then.
    const departed = new Set([...this.#projectNames].filter((n) => !this.#entries.has(n)));
    this.#projectNames = new Set(projectServers.keys());
    if (result.text.trim() !== '' || departed.size > 0) {
      const keep =
        result.text.trim() !== '' ? new Set(this.#entries.keys()) : keptWithout(this.#state.read(), departed);
      const forgotten = this.#state.forgetAllExcept(keep);
      if (forgotten.length > 0) this.#hooks.forgotten?.(forgotten);
    }
  }

  /**
   * Reads servers.json again if it changed since it was last read, before a trust decision: an edit
   * the file watcher has not delivered yet (or a CLI that showed the config a while ago) must not
   * slip past the fingerprint check.
   */
  catchUp(): void {
    if (!this.changedSinceLoad()) return;
    if (this.#hooks.reread) this.#hooks.reread();
    else this.load();
  }

  /** Whether servers.json's text differs from the last read's (a save of the same text does not). */
  changedSinceLoad(): boolean {
    let text: string;
    try {
      text = readFileSync(this.#home.serversFile, 'utf8');
    } catch {
      text = '';
    }
    return text !== this.#loadedText;
  }

  entries(): ReadonlyMap<string, ServerEntry> {
    return this.#entries;
  }

  /**
   * Shown to people (CLI, UI, tray): one problem a line. Each problem is escaped on its own (it may
   * quote the file's text), and the line breaks between them are ours, so they stay line breaks.
   */
  configError(): string | null {
    const file = basename(this.#home.serversFile);
    return this.#problems.length
      ? this.#problems.map((p) => displayText(formatProblem(p, file))).join('\n')
      : null;
  }

  configProblems(): readonly ConfigProblem[] {
    return this.#problems;
  }

  /** The server's entry, or an error that says what is configured (or why the file cannot say). */
  entry(name: string): ServerEntry {
    const entry = this.#entries.get(name);
    if (!entry && this.#problems.length > 0) {
      // The server may well be in the file; the file just cannot be read right now.
      throw new UserError(`servers.json has errors, so server "${name}" cannot be read from it`, {
        hint: `fix ${this.#home.serversFile} first:\n${this.configError() ?? ''}`,
      });
    }
    if (!entry) {
      const known = [...this.#entries.keys()];
      throw new UserError(`no server named "${name}" in ${this.#home.serversFile}`, {
        hint: known.length
          ? `configured servers: ${known.join(', ')}`
          : 'add one with: switchboard add NAME -- COMMAND ARGS…',
      });
    }
    return entry;
  }

  /** The entry for a server's config, keeping the package its approval pinned. */
  entryOf(name: string, config: ServerEntry['config']): ServerEntry {
    return serverEntry(name, config, this.lookup, this.#state.approval(name)?.config, this.#home.store);
  }

  /** Replaces a server's entry (its approval pinned a package, or its command resolves elsewhere). */
  set(entry: ServerEntry): void {
    this.#entries.set(entry.name, entry);
  }

  /**
   * The server's entry with its command looked up again: PATH or a symlink may point elsewhere since
   * servers.json was read, and an approval must cover the program that would run now.
   */
  current(name: string): ServerEntry {
    const entry = this.entry(name);
    const now = this.#lookedUpAgain(entry);
    if (!now) return entry;
    this.#entries.set(name, now);
    this.#hooks.changed?.();
    return now;
  }

  /** Looks every local server's command up again; applies what changed (see current). */
  recheckCommands(): void {
    let changed = false;
    for (const entry of this.#entries.values()) {
      const now = this.#lookedUpAgain(entry);
      if (!now) continue;
      this.#entries.set(entry.name, now);
      changed = true;
    }
    if (changed) this.#hooks.changed?.();
  }

  /** The entry with its command looked up now, or undefined when that changes nothing. */
  #lookedUpAgain(entry: ServerEntry): ServerEntry | undefined {
    if (isRemote(entry.config)) return undefined;
    const now = this.entryOf(entry.name, entry.config);
    return now.fingerprint === entry.fingerprint ? undefined : now;
  }

  /** How commands are found for servers (PATH, PATHEXT, platform); the catalog finds runtimes so too. */
  commandLookup(cwd?: string): CommandLookup {
    return this.lookup(cwd);
  }

  readonly lookup = (cwd: string | undefined): CommandLookup => ({
    path: this.#lookupOptions.commandPath,
    pathExt: this.#lookupOptions.pathExt,
    cwd: cwd ?? this.#home.root,
    platform: this.#lookupOptions.platform,
  });

  /** The lookup for an entry's command: in its `cwd` (a remote server has none). */
  lookupFor(entry: ServerEntry): CommandLookup {
    return this.lookup(isRemote(entry.config) ? undefined : entry.config.cwd);
  }

  /** A server's own folder (data/<name>): where it runs when its entry gives no `cwd`. */
  ownFolder(name: string): string {
    return serverDataDir(this.#home, name, this.#lookupOptions.platform);
  }

  /**
   * Records where a server's current config came from, to show on its approval: here, and in
   * state.json bound to the entry servers.json has now, for a restart or another process.
   */
  noteSource(name: string, source: ServerSource): void {
    // Bound to the entry as written when it is there already (an install link notes it just before).
    this.#sources.set(name, { source, config: recordSource(this.#home, name, source, this.#state) });
  }

  /** Runs Switchboard's own `edit` of `name`'s entry at the person's command, keeping its source (source-record.ts). */
  withEditRecorded<T>(
    name: string,
    edit: SwitchboardEdit | undefined,
    run: () => T | Promise<T>,
  ): Promise<T> {
    return withEditRecorded(this.#home, name, edit, run, this.#state);
  }

  /** Where a server's current config came from (see originOf). */
  sourceOf(name: string): ServerSource {
    return this.originOf(name).source;
  }

  /**
   * As recorded for this config (by this process or another, with Switchboard's edits since), else as
   * this process noted it for this config, else a hand edit.
   */
  originOf(name: string): ServerOrigin {
    const entry = this.#entries.get(name);
    const hash = entry && configHash(entry.config);
    const recorded = hash && this.#state.originOf(name, hash);
    if (recorded) return recorded;
    const remembered = this.#sources.get(name);
    // Noted before it was written (an install link): bound to the entry at its first sight.
    if (remembered && remembered.config === undefined) remembered.config = hash;
    if (remembered && remembered.config === hash) return { source: remembered.source, edits: [] };
    return { source: 'hand-edit', edits: [] };
  }

  forgetSource(name: string): void {
    this.#sources.delete(name);
  }
}
