import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { ServerStatus } from '../../../shared/status.ts';
import type { SignInRequired } from '../oauth/sign-in-required.ts';

/**
 * OAuth for a remote server's connection (oauth/provider.ts): the SDK's transports sign requests and
 * refresh through `OAuthClientProvider`; it never opens a browser, it says when a person must sign in.
 */
export interface RemoteAuth extends OAuthClientProvider {
  /** wraps the transport's fetch (scope challenges) */
  watch(fetch: FetchLike): FetchLike;
  /** the connection cannot go on until the person signs in (again); returns how to stop listening */
  onSignInNeeded(listener: (need: SignInRequired) => void): () => void;
  /** the tokens and client secret held now, and each one stored later: never to appear in a log */
  secrets(): Promise<string[]>;
  onSecrets(listener: (values: string[]) => void): () => void;
}

/**
 * What the sandbox refused a server, in words with the fix, and what kind of thing it was: a
 * connection (the proxy refused it, or a name lookup where only the proxy reaches out) stops what
 * needed it, so it ranks above a file, which ranks above another process's /proc. `grant` is the one
 * path a person can allow to fix it (`switchboard grant NAME read|write PATH`), when there is one.
 */
export interface SandboxRefusal {
  words: string;
  kind: 'network' | 'file' | 'process';
  grant?: { path: string; access: 'read' | 'write' } | undefined;
}

/** What the supervisor needs of a server's sandbox (sandbox/sandboxes.ts makes it). */
export interface SandboxRun {
  /** what a line of the server's stderr shows the sandbox refused, if anything */
  explain(line: string): SandboxRefusal | undefined;
  /**
   * A tool's answer (its text, bounded) and the arguments it was called with: what the sandbox
   * refused, if the answer shows it, is told to the run's listeners like the proxy's refusals.
   */
  answered(text: string, args: unknown, failed: boolean): void;
  /** refusals the sandbox made itself (its network proxy), and those read in answers; returns how to stop listening */
  onRefusal(listener: (refusal: SandboxRefusal) => void): () => void;
  /** frees what the run holds (its proxy); called once its process is gone */
  release(): Promise<void>;
}

/**
 * How to reach one server, fully resolved (secrets in clear). Lives only in memory, only for the
 * moment of spawning or connecting; `redact` lists the secret values to scrub from its output.
 */
export type LaunchPlan =
  | {
      transport: 'stdio';
      /** absolute path of the program */
      command: string;
      args: string[];
      cwd: string | undefined;
      /** the complete environment of the child (the caller merges process env and the server's env) */
      env: Record<string, string>;
      redact: string[];
      /** the OS sandbox it runs in, if any: explains refusals, and is released when the process is gone */
      sandbox?: SandboxRun;
      /**
       * the package-store install it starts from (npm, PyPI, bundle), if any: its code, which the
       * server must not change (the sandbox keeps it read-only)
       */
      storeFolder?: string | undefined;
    }
  | {
      transport: 'http';
      url: string;
      headers: Record<string, string>;
      /** servers.json `type`: Streamable HTTP only, the older HTTP+SSE only, or the first that answers */
      protocol: 'streamable-http' | 'sse' | 'auto';
      redact: string[];
      /** OAuth sign-in, unless the server's headers carry their own Authorization */
      auth?: RemoteAuth | undefined;
    };

/**
 * What the supervisor is asked to keep running: one entry per approved, enabled server.
 * `prepare` resolves references and may throw a UserError (missing secret, command not found,
 * keychain locked) which puts the server into `error` with that message.
 */
export interface DesiredServer {
  name: string;
  fingerprint: string;
  transport: 'stdio' | 'http';
  /** `note`: says what a long preparation is doing in the server's log (installing its package) */
  prepare(note?: (text: string) => void): Promise<LaunchPlan>;
  /**
   * How long the server may go without a request before it is stopped until the next one (`idle`);
   * 0 or absent: always running.
   */
  idleTimeoutMs?: number;
  /**
   * Its lists from an earlier run under this fingerprint are at hand (the home's cache): with an idle
   * timeout, it need not start until a request wants it.
   */
  listsKnown?: boolean;
  /**
   * The person stopped it (kept in state.json): it is not started, not even parked idle, until
   * start() or restart().
   */
  stopped?: boolean;
}

/** Timing from design.md ("Server lifecycle"); overridable for tests and benches. */
export interface SupervisorTimings {
  initializeTimeoutMs: number; // 60 s
  pingIntervalMs: number; // 30 s
  pingTimeoutMs: number; // 10 s
  pingMissesBeforeRestart: number; // 3
  backoffInitialMs: number; // 1 s
  backoffMaxMs: number; // 60 s
  backoffJitter: number; // 0.2
  stableResetMs: number; // 60 s
  crashLoopFailures: number; // 5
  crashLoopWindowMs: number; // 5 min
  stopStdinGraceMs: number; // 2 s
  stopTermGraceMs: number; // 3 s
  /** longest a starting server keeps its start slot (see StartGate) */
  startSlotMaxMs: number; // 5 s
}

export const DEFAULT_TIMINGS: SupervisorTimings = {
  initializeTimeoutMs: 60_000,
  pingIntervalMs: 30_000,
  pingTimeoutMs: 10_000,
  pingMissesBeforeRestart: 3,
  backoffInitialMs: 1_000,
  backoffMaxMs: 60_000,
  backoffJitter: 0.2,
  stableResetMs: 60_000,
  crashLoopFailures: 5,
  crashLoopWindowMs: 5 * 60_000,
  stopStdinGraceMs: 2_000,
  stopTermGraceMs: 3_000,
  startSlotMaxMs: 5_000,
};

export type SupervisedStatus = Omit<ServerStatus, 'fingerprint'> & { fingerprint: string };
