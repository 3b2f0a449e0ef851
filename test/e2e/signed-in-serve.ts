import type { ChildProcess } from 'node:child_process';
import { cpSync, existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, beforeEach, type TestContext } from 'vitest';
import { startServe, stopProcess } from '../helpers/cli.ts';
import { HANG_MS } from '../helpers/servers.ts';
import { tempHome, type TempHome } from '../helpers/temp-home.ts';
import {
  answeredEditorSyncNotice,
  ARTIFACTS,
  launchChromium,
  requireBuiltUi,
  signIn,
  signInLink,
} from './browser.ts';

/**
 * The one setup of the e2e tests: a private temp home (and HOME), a real `switchboard serve` on a free
 * port, Debian's Chromium with a page signed in through the link serve printed; and the teardown that
 * undoes all of it (browser closed, serve and its servers stopped, folders removed) whether the tests
 * passed, failed or the setup itself broke halfway.
 */

export interface Viewport {
  width: number;
  height: number;
}

/** The window most views and docs screenshots are taken in. */
export const VIEWPORT: Viewport = { width: 1280, height: 860 };

/** Undoes one thing the setup (or the test file) made; run in reverse order of making. */
export type Cleanup = () => unknown;

export interface SignedInServeOptions {
  /** Names what a run leaves in test-results/e2e: FAILED-<name>-<test>.png, <name>-serve-output.txt … */
  name: string;
  viewport?: Viewport;
  /**
   * The home before serve starts (servers.json, approvals, editors' files, fixtures it talks to). What
   * it returns is added to serve's environment; `defer` undoes what it started, after serve stopped.
   */
  prepare?: (
    t: TempHome,
    defer: (cleanup: Cleanup) => void,
  ) => NodeJS.ProcessEnv | undefined | Promise<NodeJS.ProcessEnv | undefined>;
  /**
   * The person has already answered the first-run notice of editor sync (editor-sync-notice.test.ts
   * covers the notice itself), so views show the everyday UI. Default: false.
   */
  editorSyncNoticeAnswered?: boolean;
  /** false: the page is opened but not signed in (the test signs in with `link` itself). Default: true. */
  signIn?: boolean;
  /** A fresh home, serve and page for every test (one browser for the file). Default: once per file. */
  perTest?: boolean;
}

export interface SignedInServe {
  /** The temp home, with the environment the CLI runs in against it. */
  readonly t: TempHome;
  /** serve's environment: the home's, plus what `prepare` returned. */
  readonly env: NodeJS.ProcessEnv;
  readonly serve: { child: ChildProcess; output: () => string };
  readonly browser: Browser;
  readonly context: BrowserContext;
  readonly page: Page;
  /** http://127.0.0.1:<port> of the running serve. */
  readonly origin: string;
  /** The one-time sign-in link the running serve printed. */
  readonly link: string;
  /** Errors the page threw, and console errors of a broken page (CSP, uncaught, type/reference errors). */
  readonly problems: string[];
  /** Undoes `cleanup` at teardown, after serve stopped and before the home is removed. */
  defer(cleanup: Cleanup): void;
  /** Stops serve (SIGTERM, then SIGKILL if it hangs) and waits for it to exit. */
  stopServe(): Promise<void>;
  /** Starts serve again in the same home and environment (`args`: e.g. the port it had). */
  startServe(args?: string[]): Promise<void>;
}

const BROKEN_PAGE = /Content Security Policy|Uncaught|TypeError|ReferenceError/;

/**
 * Registers the hooks that set up and tear down a signed-in serve (around the whole file, or around
 * each test with `perTest`), and returns it; its fields are there once the file's tests run.
 */
export function useSignedInServe(options: SignedInServeOptions): SignedInServe {
  let browser: Browser | undefined;
  let run: Run | undefined;
  const current = (): Run => {
    if (!run) throw new Error(`the ${options.name} e2e setup is not running (used outside a test?)`);
    return run;
  };
  let closed = false;
  const start = async (test?: TestContext) => {
    if (!browser) {
      const launched = await launchChromium();
      // A launch that outlasted its hook, after the file's teardown: closed, not left running.
      if (closed) return void (await launched.close());
      browser = launched;
    }
    const artifacts = test ? `${options.name}-${slug(test.task.name)}` : options.name;
    run = new Run(options, browser, artifacts);
    await run.start();
  };
  const screenshotIfFailed = async (context: TestContext) => {
    if (context.task.result?.state !== 'fail') return;
    await run?.screenshot(join(ARTIFACTS, `FAILED-${options.name}-${slug(context.task.name)}.png`));
  };
  const stop = async () => {
    const ending = run;
    run = undefined;
    await ending?.stop();
  };
  const closeBrowser = async () => {
    closed = true;
    const closing = browser;
    browser = undefined;
    await closing?.close();
  };

  beforeAll(() => requireBuiltUi());
  if (options.perTest) {
    beforeEach(start, HANG_MS);
    afterEach(async (context) => {
      await screenshotIfFailed(context);
      await stop();
    }, HANG_MS);
    afterAll(closeBrowser, HANG_MS);
  } else {
    beforeAll(() => start(), HANG_MS);
    afterEach(screenshotIfFailed);
    afterAll(async () => {
      try {
        await stop();
      } finally {
        await closeBrowser();
      }
    }, HANG_MS);
  }

  return {
    get t() {
      return current().t;
    },
    get env() {
      return current().env;
    },
    get serve() {
      return current().serve;
    },
    get browser() {
      return current().browser;
    },
    get context() {
      return current().context;
    },
    get page() {
      return current().page;
    },
    get origin() {
      return new URL(current().link).origin;
    },
    get link() {
      return current().link;
    },
    get problems() {
      return current().problems;
    },
    defer: (cleanup) => current().defer(cleanup),
    stopServe: () => current().stopServe(),
    startServe: (args) => current().startServe(args),
  };
}

/** One home + serve + page, from start to teardown. */
class Run {
  readonly t: TempHome;
  env: NodeJS.ProcessEnv;
  readonly problems: string[] = [];
  #serve: { child: ChildProcess; output: () => string } | undefined;
  #context: BrowserContext | undefined;
  #page: Page | undefined;
  #cleanups: Cleanup[] = [];
  #stopping = false;
  /** Each serve's output and how it ended, kept for test-results/e2e. */
  #outputs: string[] = [];

  readonly #options: SignedInServeOptions;
  readonly browser: Browser;
  /** Names this run's artifacts in test-results/e2e. */
  readonly #artifacts: string;

  constructor(options: SignedInServeOptions, browser: Browser, artifacts: string) {
    this.#options = options;
    this.browser = browser;
    this.#artifacts = artifacts;
    this.t = tempHome();
    this.env = this.t.env;
  }

  get serve(): { child: ChildProcess; output: () => string } {
    if (!this.#serve) throw new Error(`${this.#options.name}: serve has not started`);
    return this.#serve;
  }

  get context(): BrowserContext {
    if (!this.#context) throw new Error(`${this.#options.name}: no browser context yet`);
    return this.#context;
  }

  get page(): Page {
    if (!this.#page) throw new Error(`${this.#options.name}: no page yet`);
    return this.#page;
  }

  get link(): string {
    return signInLink(this.serve.output());
  }

  /** What the page shows, when there is one (a failed test's picture); never fails itself. */
  async screenshot(path: string): Promise<void> {
    await this.#page?.screenshot({ path, fullPage: true }).catch(() => undefined);
  }

  /** Anything made after the teardown began (a setup step that outlasted its hook) goes at once. */
  defer(cleanup: Cleanup): void {
    if (this.#stopping)
      void Promise.resolve()
        .then(cleanup)
        .catch(() => undefined);
    else this.#cleanups.push(cleanup);
  }

  async start(): Promise<void> {
    try {
      const extra = await this.#options.prepare?.(this.t, (cleanup) => this.defer(cleanup));
      // Merged into what prepare wrote (approvals through the CLI, say).
      if (this.#options.editorSyncNoticeAnswered) answeredEditorSyncNotice(this.t.home.stateFile);
      this.env = { ...this.t.env, ...extra };
      await this.startServe();
      const context = await this.browser.newContext({ viewport: this.#options.viewport ?? VIEWPORT });
      this.defer(() => context.close());
      this.#context = context;
      const page = await context.newPage();
      page.on('console', (m) => {
        if (m.type() === 'error' && BROKEN_PAGE.test(m.text())) this.problems.push(m.text());
      });
      page.on('pageerror', (err) => this.problems.push(`pageerror: ${err.message}`));
      this.#page = page;
      if (this.#options.signIn !== false) await signIn(page, this.link);
    } catch (err) {
      await this.stop().catch(() => undefined);
      throw err;
    }
  }

  async startServe(args?: string[]): Promise<void> {
    const running = this.#serve?.child;
    if (running && running.exitCode === null && running.signalCode === null)
      throw new Error(`${this.#options.name}: serve is running already; stopServe() first`);
    const serve = await startServe(this.env, args);
    let stoppedByTeardown = false;
    serve.child.on('exit', (code, signal) =>
      this.#outputs.push(
        `${serve.output()}\nserve exited: code ${code}, signal ${signal}` +
          (stoppedByTeardown ? ' (stopped by the teardown)' : ''),
      ),
    );
    this.#serve = serve;
    this.defer(async () => {
      stoppedByTeardown = serve.child.exitCode === null && serve.child.signalCode === null;
      await stopProcess(serve.child);
    });
    if (this.#stopping) throw new Error(`${this.#options.name}: torn down while serve was starting`);
  }

  async stopServe(): Promise<void> {
    await stopProcess(this.serve.child);
  }

  /**
   * Undoes everything in reverse order, each step even when one before it failed; then keeps serve's
   * output and the servers' logs for a post-mortem, and removes the home.
   */
  async stop(): Promise<void> {
    if (this.#stopping) return;
    this.#stopping = true;
    const failures: unknown[] = [];
    for (const cleanup of this.#cleanups.splice(0).reverse()) {
      try {
        await cleanup();
      } catch (err) {
        failures.push(err);
      }
    }
    try {
      if (this.#outputs.length)
        writeFileSync(
          join(ARTIFACTS, `${this.#artifacts}-serve-output.txt`),
          this.#outputs.join('\n\n') + '\n',
        );
      if (existsSync(this.t.home.logs))
        cpSync(this.t.home.logs, join(ARTIFACTS, `${this.#artifacts}-server-logs`), {
          recursive: true,
          force: true,
        });
    } catch (err) {
      failures.push(err);
    }
    this.t.cleanup();
    if (failures.length === 1) throw failures[0];
    if (failures.length) throw new AggregateError(failures, `${this.#options.name}: teardown failed`);
  }
}

function slug(text: string): string {
  return text.replace(/[^a-z0-9]+/gi, '-').slice(0, 60);
}
