import type { ChildProcess } from 'node:child_process';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, expect } from 'vitest';
import { SIGN_IN_KEYCHAIN_SERVICE } from '../../electron/core/oauth/sign-in-store.ts';
import { OsKeychain } from '../../electron/core/secrets/keychain.ts';
import { StatusReportSchema, type ServerStatus } from '../../shared/status.ts';
import { httpClient, textOf } from './bridge.ts';
import { exited, runCli, startServe } from './cli.ts';
import { startOAuthFixture, type OAuthFixture } from './oauth-server.ts';
import { HANG_MS, waitFor } from './servers.ts';
import { tempHome, type TempHome } from './temp-home.ts';

/**
 * The one setup of the tests that sign in to a remote server through real processes: the OAuth
 * fixture (test/fixtures/oauth-server.mjs) as a `url` entry of a temp home, a real `switchboard
 * serve` on it, an editor's token; and the teardown (serve stopped, fixture stopped, the sign-in
 * deleted from the real keychain, the home removed), also when the setup broke halfway.
 */

type FixtureOptions = Parameters<typeof startOAuthFixture>[0];

export interface OAuthServeSetup {
  /** The server's name: unique per run, as sign-ins live in the keychain (shared by every test). */
  readonly name: string;
  readonly t: TempHome;
  readonly fixture: OAuthFixture;
  readonly serve: { child: ChildProcess; output: () => string };
  /** The bridge's port (from serve's banner). */
  readonly port: number;
  /** t.env with SWITCHBOARD_SIGN_IN=fetch: `login` follows the authorization page, no browser. */
  signInEnv(): NodeJS.ProcessEnv;
  /** Starts the fixture and writes it as the home's one server (not started, not approved). */
  prepare(options?: FixtureOptions): Promise<void>;
  /** Starts `switchboard serve` on the home. */
  startServe(): Promise<void>;
  /** prepare, startServe, and an editor token for callThroughBridge. */
  startAll(options?: FixtureOptions): Promise<void>;
  /** The server's line of `status --json`. */
  status(): Promise<ServerStatus | undefined>;
  /** Waits (bounded by HANG_MS) until the server is in `state`. */
  stateIs(state: ServerStatus['state'], what?: string): Promise<ServerStatus>;
  /** An editor's call of the server's echo tool through the bridge: its text, or the MCP error's message. */
  callThroughBridge(message: string): Promise<string>;
}

/** Registers the teardown (afterAll) and returns the setup; `prefix` starts the server's name. */
export function useOAuthServe(prefix: string): OAuthServeSetup {
  const name = `${prefix}-${Math.random().toString(36).slice(2, 8)}`;
  let t: TempHome | undefined;
  let fixture: OAuthFixture | undefined;
  let serve: { child: ChildProcess; output: () => string } | undefined;
  let port = 0;
  let editorToken = '';
  const need = <T>(value: T | undefined, what: string): T => {
    if (value === undefined) throw new Error(`the OAuth setup has no ${what} yet`);
    return value;
  };

  afterAll(async () => {
    serve?.child.kill('SIGTERM');
    if (serve) await exited(serve.child);
    fixture?.stop();
    await new OsKeychain({ service: SIGN_IN_KEYCHAIN_SERVICE }).delete(name).catch(() => false);
    t?.cleanup();
  });

  const setup: OAuthServeSetup = {
    name,
    get t() {
      return need(t, 'home (call prepare first)');
    },
    get fixture() {
      return need(fixture, 'fixture (call prepare first)');
    },
    get serve() {
      return need(serve, 'serve (call startServe first)');
    },
    get port() {
      return port;
    },
    signInEnv: () => ({ ...setup.t.env, SWITCHBOARD_SIGN_IN: 'fetch' }),
    async prepare(options = {}) {
      fixture = await startOAuthFixture(options);
      t = tempHome();
      t.writeServers({ mcpServers: { [name]: { url: fixture.url } } });
    },
    async startServe() {
      serve = await startServe(setup.t.env);
      port = Number(/127\.0\.0\.1:(\d+)/.exec(serve.output())?.[1]);
    },
    async startAll(options) {
      await setup.prepare(options);
      await setup.startServe();
      const token = await runCli(['token', 'create', 'test-editor'], setup.t.env);
      expect(token.code, token.stderr).toBe(0);
      editorToken = token.stdout.trim().split('\n').at(-1) ?? '';
    },
    async status() {
      const result = await runCli(['status', '--json'], setup.t.env);
      expect(result.code, result.stderr).toBe(0);
      return StatusReportSchema.parse(JSON.parse(result.stdout)).servers.find((s) => s.name === name);
    },
    stateIs(state, what = state) {
      return waitFor(
        async () => {
          const s = await setup.status();
          return s?.state === state ? s : undefined;
        },
        HANG_MS,
        `${name} ${what}`,
      );
    },
    async callThroughBridge(message) {
      let client: Client | undefined;
      try {
        client = await httpClient(`http://127.0.0.1:${port}/mcp/${name}`, editorToken);
        return textOf(await client.callTool({ name: 'echo', arguments: { message } }));
      } catch (err) {
        if (err instanceof McpError) return `error: ${err.message}`;
        throw err;
      } finally {
        await client?.close();
      }
    },
  };
  return setup;
}
