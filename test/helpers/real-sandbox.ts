import { spawnSync } from 'node:child_process';
import { chmodSync } from 'node:fs';
import { join } from 'node:path';
import type { Core } from '../../electron/core/core.ts';
import { sandboxPolicy, type SandboxPolicy } from '../../electron/core/sandbox/policy.ts';
import { Sandboxes } from '../../electron/core/sandbox/sandboxes.ts';
import { sandboxSupportFor, type SandboxSupport } from '../../electron/core/sandbox/support.ts';
import type { SandboxSetting } from '../../shared/schema/servers.ts';
import { waitFor } from './servers.ts';
import type { TempHome } from './temp-home.ts';

/**
 * The real-bubblewrap setup the sandbox's integration tests share (test/integration/sandbox): a
 * program run as server "x" of a temp home under its policy, and the hostile fixture
 * (test/fixtures/hostile-server.mjs) run by a real Core and asked what it managed. Skip such tests
 * with `sandboxUnavailable()` (./sandbox.ts) where bubblewrap or socat cannot run.
 */

/** What the hostile fixture's `attempt` tool answers: each thing it tried, whether it worked, what it got. */
export type Attempts = Record<string, { ok: boolean; said: string }>;

export type SandboxedPolicy = Extract<SandboxPolicy, { sandboxed: true }>;

export interface SandboxRunOptions {
  command: string;
  args: string[];
  setting: SandboxSetting;
  /** The program's environment, given its policy. Default: PATH=/usr/bin:/bin. */
  env?: (policy: SandboxedPolicy) => Record<string, string>;
  /** Default: this machine's (sandboxSupportFor). */
  support?: SandboxSupport;
  /** Where the sandbox makes its temp folders (Sandboxes' tempRoot); default the OS's temp folder. */
  tempRoot?: string;
  /** Run as this uid and gid (setpriv, as root); the whole temp home is given to it first. */
  asUid?: number;
  /** Fills the server's own folder (its path given) before the policy is made. */
  prepareOwn?: (own: string) => void;
}

export interface SandboxRun {
  out: string;
  err: string;
  status: number | null;
  policy: SandboxedPolicy;
  /** The server's own folder, its working directory. */
  own: string;
}

/**
 * Runs `command args` to its end (killed after 120 s) in real bubblewrap as server "x" of home `t`,
 * in its own folder, under the policy `setting` gives on this machine.
 */
export async function runInSandbox(t: TempHome, options: SandboxRunOptions): Promise<SandboxRun> {
  const support = options.support ?? sandboxSupportFor('linux', process.env.PATH);
  const own = join(t.home.data, 'x');
  options.prepareOwn?.(own);
  const { command, args } = options;
  const policy = sandboxPolicy({
    name: 'x',
    setting: options.setting,
    command,
    args,
    env: {},
    cwd: undefined,
    ownFolder: own,
    switchboardHome: t.home.root,
    userHome: t.env.HOME,
    support,
  });
  if (!policy.sandboxed) throw new Error('expected a sandbox');
  const env = options.env?.(policy) ?? { PATH: '/usr/bin:/bin' };
  const sandboxes = new Sandboxes({ support, ...(options.tempRoot ? { tempRoot: options.tempRoot } : {}) });
  try {
    const { program } = await sandboxes.wrap({ command, args, cwd: own, env }, policy);
    const uid = options.asUid;
    if (uid !== undefined) {
      chmodSync(t.dir, 0o755);
      spawnSync('chown', ['-R', `${uid}:${uid}`, t.dir]);
    }
    const [file, ...rest] =
      uid === undefined
        ? [program.command, ...program.args]
        : [
            'setpriv',
            '--reuid',
            String(uid),
            '--regid',
            String(uid),
            '--clear-groups',
            program.command,
            ...program.args,
          ];
    const run = spawnSync(file ?? '', rest, {
      cwd: program.cwd,
      env: program.env,
      encoding: 'utf8',
      timeout: 120_000,
    });
    return { out: run.stdout, err: run.stderr, status: run.status, policy, own };
  } finally {
    await sandboxes.dispose();
  }
}

/**
 * Approves server `name` of a started core as reviewed and waits (30 s) until it runs. The caller
 * made the core (and stops it), so a failed wait still leaves it to the caller's teardown.
 */
export async function approveUntilRunning(core: Core, name: string): Promise<void> {
  core.approvals.approve(name, core.approvals.review(name).fingerprint);
  await waitFor(
    () => core.status.report().servers.find((s) => s.name === name)?.state === 'running',
    30_000,
    `${name} running`,
  );
}

/** Calls the running hostile fixture's `attempt` tool through the core's own client. */
export async function hostileAttempts(core: Core, name = 'hostile'): Promise<Attempts> {
  const client = core.lifecycle.supervisor()?.runner(name)?.client;
  if (!client) throw new Error(`${name} has no client`);
  const result = await client.callTool({ name: 'attempt', arguments: {} });
  return JSON.parse((result.content as { text: string }[])[0]?.text ?? '{}') as Attempts;
}
