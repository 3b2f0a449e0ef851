import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';
import { MemoryKeychain } from '../../electron/core/secrets/keychain.ts';
import { startHeadless, type Headless, type HeadlessOptions } from '../../electron/headless/serve.ts';
import type { ServerStatus } from '../../shared/status.ts';
import { closeAll, editorToken, httpClient } from './bridge.ts';
import { waitFor } from './servers.ts';
import { tempHome, type TempHome } from './temp-home.ts';

/**
 * The one setup of the integration tests that drive a headless core: a private temp home, the real
 * core and bridge (`startHeadless`) on a free port, real MCP SDK clients with an editor's token; and
 * the teardown that undoes all of it (clients closed, core and its servers stopped, what the file
 * deferred undone, the home removed) whether the tests passed, failed or the setup broke halfway.
 */

/** Undoes one thing a test file started around the core (a stub server, a fixture process). */
export type Cleanup = () => unknown;

/** startHeadless's options but the home; keychain defaults to an in-memory one, port to 0. */
export type StartOptions = Partial<Omit<HeadlessOptions, 'home'>>;

export interface HeadlessSetupOptions {
  /** A fresh home (and core, once started) for every test. Default: one for the whole file. */
  perTest?: boolean;
}

export interface HeadlessSetup {
  /** The temp home of the running file (or test, with `perTest`). */
  readonly t: TempHome;
  /** The started core; throws if `start` was not called yet. */
  readonly headless: Headless;
  /** http://127.0.0.1:<port> of the started bridge. */
  readonly base: string;
  /** Clients closed at teardown; `connect` adds to it, a test may push its own. */
  readonly clients: Client[];
  /** Starts the core and bridge on the home (stopped at teardown); options as startHeadless's. */
  start(options?: StartOptions): Promise<Headless>;
  /** Stops the core (a test restarting it calls `start` again); teardown does it otherwise. */
  stop(): Promise<void>;
  /** Approves each server as reviewed, then waits until each is running with its tools known. */
  approveRunning(names: string[], timeoutMs?: number): Promise<ServerStatus[]>;
  /** A real SDK client on `path` of the bridge (`/mcp`, `/mcp/<server>`) with `editor`'s token. */
  connect(path: string, editor?: string): Promise<Client>;
  /** Undoes `cleanup` at teardown, after the core stopped and before the home is removed. */
  defer(cleanup: Cleanup): void;
}

/**
 * Registers the hooks that make and remove the temp home (around the whole file, or around each test
 * with `perTest`) and stop what was started on it, and returns the setup; its fields are there once
 * the file's tests (or beforeAll/beforeEach hooks registered after this call) run.
 */
export function useHeadless(options: HeadlessSetupOptions = {}): HeadlessSetup {
  let run: Run | undefined;
  const current = (): Run => {
    if (!run) throw new Error('the headless setup is not running (used outside a test or hook?)');
    return run;
  };
  const up = () => {
    run = new Run();
  };
  const down = async () => {
    const ending = run;
    run = undefined;
    await ending?.stop();
  };
  if (options.perTest) {
    beforeEach(up);
    afterEach(down);
  } else {
    beforeAll(up);
    afterAll(down);
  }
  return {
    get t() {
      return current().t;
    },
    get headless() {
      const h = current().headless;
      if (!h) throw new Error('the headless core is not started (call start() first)');
      return h;
    },
    get base() {
      return `http://127.0.0.1:${this.headless.port}`;
    },
    get clients() {
      return current().clients;
    },
    start: (startOptions) => current().start(startOptions),
    stop: () => current().stopCore(),
    approveRunning: (names, timeoutMs) => current().approveRunning(names, timeoutMs),
    connect: (path, editor) => current().connect(path, editor),
    defer: (cleanup) => current().cleanups.push(cleanup),
  };
}

/**
 * Approves each server of a started core as reviewed, then waits until each is running with its
 * tools known (what `useHeadless().approveRunning` does, for a core started otherwise).
 */
export async function approveRunning(
  core: Headless['core'],
  names: readonly string[],
  timeoutMs = 30_000,
): Promise<ServerStatus[]> {
  for (const name of names) core.approvals.approve(name, core.approvals.review(name).fingerprint);
  const statuses: ServerStatus[] = [];
  for (const name of names) {
    const running = () =>
      core.status.report().servers.find((s) => s.name === name && s.state === 'running' && s.toolCount);
    statuses.push(await waitFor(running, timeoutMs, `${name} running`));
  }
  return statuses;
}

class Run {
  readonly t = tempHome();
  readonly clients: Client[] = [];
  readonly cleanups: Cleanup[] = [];
  headless: Headless | undefined;

  async start(options: StartOptions = {}): Promise<Headless> {
    if (this.headless) throw new Error('the headless core is already started; stop it first');
    const h = await startHeadless({
      keychain: new MemoryKeychain(),
      env: this.t.env,
      port: 0,
      ...options,
      home: this.t.home,
    });
    this.headless = h;
    return h;
  }

  async stopCore(): Promise<void> {
    const h = this.headless;
    this.headless = undefined;
    await h?.stop();
  }

  approveRunning(names: string[], timeoutMs?: number): Promise<ServerStatus[]> {
    return approveRunning(this.started().core, names, timeoutMs);
  }

  async connect(path: string, editor = 'test-editor'): Promise<Client> {
    const h = this.started();
    const client = await httpClient(
      `http://127.0.0.1:${h.port}${path}`,
      editorToken(h.tokens, editor),
      editor,
    );
    this.clients.push(client);
    return client;
  }

  private started(): Headless {
    if (!this.headless) throw new Error('the headless core is not started (call start() first)');
    return this.headless;
  }

  /** Each step runs even when one before it failed; the first failure is reported after all ran. */
  async stop(): Promise<void> {
    const failures: unknown[] = [];
    const attempt = async (step: () => unknown) => {
      try {
        await step();
      } catch (error) {
        failures.push(error);
      }
    };
    await attempt(() => closeAll(this.clients));
    await attempt(() => this.headless?.stop());
    this.headless = undefined;
    for (const cleanup of this.cleanups.splice(0).reverse()) await attempt(cleanup);
    await attempt(() => this.t.cleanup());
    if (failures.length) throw failures[0];
  }
}
