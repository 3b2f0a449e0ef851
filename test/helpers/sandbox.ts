import { sandboxPolicy, type SandboxPolicy } from '../../electron/core/sandbox/policy.ts';
import { sandboxSupportFor, type SandboxSupport } from '../../electron/core/sandbox/support.ts';
import type { SandboxSetting } from '../../shared/schema/servers.ts';

/** A Linux machine with bubblewrap and socat, for tests that build sandboxes without running them. */
export const LINUX_SUPPORT: SandboxSupport = {
  platform: 'linux',
  engine: { kind: 'bwrap', path: '/usr/bin/bwrap' },
  missing: '',
  networkFilter: { kind: 'socat', path: '/usr/bin/socat' },
  networkFilterMissing: '',
  temp: ['/tmp', '/var/tmp'],
  root: false,
};

/** macOS with sandbox-exec. */
export const MAC_SUPPORT: SandboxSupport = {
  platform: 'darwin',
  engine: { kind: 'seatbelt', path: '/usr/bin/sandbox-exec' },
  missing: '',
  networkFilter: { kind: 'seatbelt' },
  networkFilterMissing: '',
  temp: ['/private/var/folders/zz/T', '/private/tmp', '/private/var/tmp'],
  root: false,
};

/** The policy of a server "x" run by `command` on a machine like `support`, which must sandbox it. */
export function sandboxedPolicy(
  support: SandboxSupport,
  where: { home: string; switchboardHome: string; command: string },
  setting?: SandboxSetting,
): Extract<SandboxPolicy, { sandboxed: true }> {
  const policy = sandboxPolicy({
    name: 'x',
    setting,
    command: where.command,
    args: [],
    env: {},
    cwd: undefined,
    ownFolder: `${where.switchboardHome}/data/x`,
    switchboardHome: where.switchboardHome,
    userHome: where.home,
    support,
  });
  if (!policy.sandboxed) throw new Error('expected a sandbox');
  return policy;
}

/**
 * Why the sandbox's integration tests cannot run on this machine (printed), or undefined: they need
 * bubblewrap that works and socat.
 */
export function sandboxUnavailable(): string | undefined {
  const support = sandboxSupportFor(process.platform, process.env.PATH);
  const why =
    support.engine?.kind !== 'bwrap'
      ? support.missing || 'not Linux'
      : support.networkFilter === null
        ? support.networkFilterMissing
        : undefined;
  if (why) console.log(`sandbox tests skipped: ${why}`);
  return why;
}
