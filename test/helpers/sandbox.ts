import type { SandboxSupport } from '../../electron/core/sandbox/support.ts';

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
