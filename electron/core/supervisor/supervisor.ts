import { EventEmitter } from 'node:events';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import type { Notification, Tool } from '@modelcontextprotocol/sdk/types.js';
import type { LogLine } from '../../../shared/logs.ts';
import { systemClock, type Clock } from '../clock.ts';
import { describeError, UserError } from '../errors.ts';
import { readLogHistory } from '../logs/log-history.ts';
import { RotatingFile } from '../logs/rotating-file.ts';
import { ServerLog } from '../logs/server-log.ts';
import type { Random } from './backoff.ts';
import type { ServerLists } from '../lists/server-lists.ts';
import { reapOrphans, type ReapedOrphan } from './pid-files.ts';
import type { ClientInfo } from './initialize.ts';
import { ServerRunner } from './server-runner.ts';
import { StartGate } from './start-gate.ts';
import type { UpstreamPeer } from './upstream-link.ts';
import type { ClientCapabilities } from '@modelcontextprotocol/sdk/types.js';
import {
  DEFAULT_TIMINGS,
  type DesiredServer,
  type SupervisedStatus,
  type SupervisorTimings,
} from './types.ts';

export interface SupervisorOptions {
  clock?: Clock;
  timings?: Partial<SupervisorTimings>;
  random?: Random;
  /** logs/<server>.log go here; null (default) keeps logs in memory only */
  logsDir?: string | null;
  /** pid files go here (run/); null (default) writes none and reaps nothing */
  runDir?: string | null;
  /** lines kept per server for the live view (default 5,000) */
  ringCapacity?: number;
  /** rotation of each server's log file (default 1 MiB, 3 old files) */
  logFile?: { maxBytes?: number; keep?: number };
  clientInfo?: ClientInfo;
  /** servers starting at once (default 8); the others wait their turn in state `starting` */
  startConcurrency?: number;
  /** the bridge, which takes each server connection's messages for editors */
  peer?: () => UpstreamPeer | undefined;
}

export interface SupervisorEvents {
  status: [SupervisedStatus];
  log: [LogLine];
  /** a server's tool list, after each successful tools/list */
  tools: [name: string, tools: Tool[]];
  /** everything a server listed on its current run (see ServerRunner's `lists`), with its fingerprint */
  lists: [name: string, fingerprint: string, lists: ServerLists];
  /** a notification from a server (list_changed, logging, …), for the bridge to fan out */
  notification: [name: string, notification: Notification];
  /** a server left the desired set and its process is gone */
  removed: [name: string];
}

/**
 * Owns one ServerRunner per desired server. reconcile() makes the running set match the config:
 * new servers start, removed ones stop, changed fingerprints restart, unchanged ones are left alone.
 */
export class Supervisor extends EventEmitter<SupervisorEvents> {
  readonly #clock: Clock;
  readonly #timings: SupervisorTimings;
  readonly #random: Random;
  readonly #logsDir: string | null;
  readonly #runDir: string | null;
  readonly #ringCapacity: number | undefined;
  readonly #logFile: { maxBytes?: number; keep?: number };
  readonly #clientInfo: ClientInfo | undefined;
  readonly #startGate: StartGate;
  readonly #peer: (() => UpstreamPeer | undefined) | undefined;
  readonly #runners = new Map<string, ServerRunner>();
  /** each server's extra processes that serve one editor session alone (`isolated` servers) */
  readonly #instances = new Map<string, Set<ServerRunner>>();
  readonly #logs = new Map<string, ServerLog>();
  #reaping: Promise<ReapedOrphan[]> | null = null;
  #queue: Promise<void> = Promise.resolve();
  #shutdown: Promise<void> | null = null;

  constructor(options: SupervisorOptions = {}) {
    super();
    this.#clock = options.clock ?? systemClock;
    this.#timings = { ...DEFAULT_TIMINGS, ...options.timings };
    this.#random = options.random ?? Math.random;
    this.#logsDir = options.logsDir ?? null;
    this.#runDir = options.runDir ?? null;
    this.#ringCapacity = options.ringCapacity;
    this.#logFile = options.logFile ?? {};
    this.#clientInfo = options.clientInfo;
    this.#peer = options.peer;
    this.#startGate = new StartGate({
      limit: options.startConcurrency ?? 8,
      maxHoldMs: this.#timings.startSlotMaxMs,
      clock: this.#clock,
    });
  }

  /**
   * Kills process groups a previous, crashed run left behind (from the pid files in runDir) and
   * notes each in that server's log. Runs once; reconcile() waits for it, so no server is started
   * next to its own orphan.
   */
  reapOrphans(): Promise<ReapedOrphan[]> {
    this.#reaping ??= this.#reap();
    return this.#reaping;
  }

  async #reap(): Promise<ReapedOrphan[]> {
    if (this.#runDir === null) return [];
    const reaped = await reapOrphans(this.#runDir).catch(() => []);
    for (const orphan of reaped) {
      this.#logFor(orphan.name).lifecycle(
        `reaped process group ${orphan.pgid} left by a previous run (pids ${orphan.killed.join(', ')}): ${orphan.command}`,
        'warn',
      );
    }
    return reaped;
  }

  /**
   * Makes the supervised set match `desired`. Calls are applied in order; the promise resolves when
   * removed servers are gone and changed ones restarted (not when new ones are running). Never rejects.
   */
  reconcile(desired: readonly DesiredServer[]): Promise<void> {
    const run = this.#queue.then(() => this.#reconcile(desired));
    this.#queue = run.catch(() => {});
    return this.#queue;
  }

  async #reconcile(desired: readonly DesiredServer[]): Promise<void> {
    await this.reapOrphans();
    if (this.#shutdown !== null) return;
    const wanted = new Map<string, DesiredServer>();
    for (const server of desired) if (!wanted.has(server.name)) wanted.set(server.name, server);
    const work: Promise<unknown>[] = [];
    for (const [name, runner] of this.#runners) {
      if (wanted.has(name)) continue;
      this.#runners.delete(name);
      for (const instance of this.#instances.get(name) ?? []) work.push(instance.dispose());
      this.#instances.delete(name);
      work.push(runner.dispose().then(() => this.emit('removed', name)));
    }
    for (const server of wanted.values()) {
      const runner = this.#runners.get(server.name);
      if (runner) {
        for (const instance of this.#instances.get(server.name) ?? []) work.push(instance.update(server));
        work.push(runner.update(server));
      } else {
        const runner = this.#add(server);
        // Stopped by the person (before a restart of Switchboard too): it waits for them.
        if (server.stopped === true) continue;
        // A server whose lists are known answers list requests from them: it starts when first used.
        if ((server.idleTimeoutMs ?? 0) > 0 && server.listsKnown === true) runner.park();
        else runner.start();
      }
    }
    await Promise.all(work.map((w) => w.catch((err: unknown) => this.#internalError(err))));
  }

  /** Starts a supervised server that is stopped, errored or in crash-loop (clears its backoff). */
  async start(name: string): Promise<void> {
    this.#runner(name).start();
  }

  /** A request wants the server: starts it if it is idle (see ServerRunner.wake). */
  wake(name: string): void {
    this.#runners.get(name)?.wake();
  }

  /** Stops a supervised server until start()/restart() (a config change does not restart it). */
  async stop(name: string): Promise<void> {
    await this.#runner(name).stop();
  }

  /** Restarts a server now; resolves once the old process group is gone. */
  async restart(name: string): Promise<void> {
    await this.#runner(name).restart();
  }

  /**
   * Starts a process of an approved server for one editor session alone (servers marked `isolated`):
   * the same launch, initialized with that editor's own capabilities and identity, logging into the
   * server's log under `tag`. Undefined when the server is not supervised (not approved, disabled).
   * It restarts on a crash like any server, and follows config changes; release() ends it.
   */
  isolate(
    name: string,
    options: { tag: string; capabilities: ClientCapabilities; clientInfo?: ClientInfo; peer: UpstreamPeer },
  ): ServerRunner | undefined {
    const base = this.#runners.get(name);
    if (!base || this.#shutdown !== null) return undefined;
    const runner = new ServerRunner({
      desired: base.desired,
      clock: this.#clock,
      timings: this.#timings,
      random: this.#random,
      log: this.#logFor(name),
      runDir: this.#runDir,
      startGate: this.#startGate,
      capabilities: options.capabilities,
      peer: () => options.peer,
      instance: options.tag,
      ...((options.clientInfo ?? this.#clientInfo)
        ? { clientInfo: options.clientInfo ?? this.#clientInfo }
        : {}),
    });
    let set = this.#instances.get(name);
    if (!set) this.#instances.set(name, (set = new Set()));
    set.add(runner);
    runner.start();
    return runner;
  }

  /** Ends a session's own process; resolves once it is gone. */
  async release(runner: ServerRunner): Promise<void> {
    this.#instances.get(runner.name)?.delete(runner);
    await runner.dispose();
  }

  status(): SupervisedStatus[] {
    return [...this.#runners.values()].map((r) => r.status);
  }

  statusOf(name: string): SupervisedStatus | undefined {
    return this.#runners.get(name)?.status;
  }

  /** The runner of a server (its MCP client and tools, for the bridge). */
  runner(name: string): ServerRunner | undefined {
    return this.#runners.get(name);
  }

  /**
   * The newest `limit` lines of a server's log: this run's (also for servers removed since), after
   * what its log file held from earlier runs of Switchboard.
   */
  logs(name: string, limit = Infinity): LogLine[] {
    const lines = this.#logFor(name).lines();
    return limit >= lines.length ? lines : lines.slice(lines.length - limit);
  }

  /** Stops every server in parallel; resolves when every process group is gone and logs are on disk. */
  shutdown(): Promise<void> {
    this.#shutdown ??= (async () => {
      await this.#queue;
      const runners = [
        ...this.#runners.values(),
        ...[...this.#instances.values()].flatMap((set) => [...set]),
      ];
      this.#runners.clear();
      this.#instances.clear();
      await Promise.all(runners.map((r) => r.dispose().catch((err: unknown) => this.#internalError(err))));
      await Promise.all([...this.#logs.values()].map((log) => log.close().catch(() => {})));
    })();
    return this.#shutdown;
  }

  #add(server: DesiredServer): ServerRunner {
    const runner = new ServerRunner({
      desired: server,
      clock: this.#clock,
      timings: this.#timings,
      random: this.#random,
      log: this.#logFor(server.name),
      runDir: this.#runDir,
      startGate: this.#startGate,
      ...(this.#peer ? { peer: this.#peer } : {}),
      ...(this.#clientInfo ? { clientInfo: this.#clientInfo } : {}),
    });
    runner.on('status', (status) => this.emit('status', status));
    runner.on('tools', (tools) => this.emit('tools', server.name, tools));
    runner.on('lists', (lists) => this.emit('lists', server.name, runner.desired.fingerprint, lists));
    runner.on('notification', (notification) => this.emit('notification', server.name, notification));
    this.#runners.set(server.name, runner);
    return runner;
  }

  /** A line of Switchboard's in the server's log (what it decided about the server, and why). */
  note(name: string, text: string, level: LogLine['level'] = 'info'): void {
    this.#logFor(name).lifecycle(text, level);
  }

  #logFor(name: string): ServerLog {
    let log = this.#logs.get(name);
    if (!log) {
      const file =
        this.#logsDir === null
          ? null
          : new RotatingFile(join(this.#logsDir, `${encodeURIComponent(name)}.log`), {
              ...this.#logFile,
              onError: (err) => this.emit('log', this.#note(name, `log file: ${describeError(err)}`)),
            });
      log = new ServerLog({
        server: name,
        clock: this.#clock,
        file,
        ...(this.#ringCapacity ? { capacity: this.#ringCapacity } : {}),
        onLine: (line) => this.emit('log', line),
        ...(file ? { history: historyOf(file, name) } : {}),
      });
      this.#logs.set(name, log);
    }
    return log;
  }

  #note(server: string, text: string): LogLine {
    return { server, ts: this.#clock.now(), source: 'lifecycle', level: 'warn', text };
  }

  #runner(name: string): ServerRunner {
    const runner = this.#runners.get(name);
    if (!runner)
      throw new UserError(`server "${name}" is not supervised`, { hint: 'is it approved and enabled?' });
    return runner;
  }

  #internalError(err: unknown): void {
    // Runners handle their own failures; reaching here is a bug. Keep supervising the others.
    console.error('switchboard supervisor:', err);
  }
}

/**
 * A server's log history: the lines its file held when this run began (before this run wrote any),
 * read when first asked for. Once the file was rotated, they moved to `.1`; after a second rotation
 * this run's own lines fill the view anyway.
 */
function historyOf(file: RotatingFile, server: string): (max: number) => LogLine[] {
  let end = 0;
  try {
    end = statSync(file.path).size;
  } catch {
    // no file yet: no history
  }
  return (max) => {
    if (file.rotations > 1) return [];
    return readLogHistory(file.rotations === 1 ? `${file.path}.1` : file.path, end, server, max);
  };
}
