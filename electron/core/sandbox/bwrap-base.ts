import { BOUNDS } from './bounds.ts';

/**
 * What every sandbox starts from: its own pid, IPC, UTS and cgroup namespaces (and network, unless
 * open), no capabilities when run as root, the system read-only, a minimal /dev with a bounded
 * /dev/shm, and a fresh /proc. `sized`: bubblewrap takes `--size` and `--perms` (support.ts tries
 * them). `dropsToNobody`: as root, keep only what it takes to become nobody first thing inside
 * (setpriv, run-as.ts); setting the uid clears them all before the server runs.
 */
export function bwrapBase(options: {
  network: boolean;
  root: boolean;
  sized?: boolean | undefined;
  dropsToNobody?: boolean | undefined;
}): string[] {
  return [
    '--die-with-parent',
    '--unshare-pid',
    '--unshare-ipc',
    '--unshare-uts',
    '--unshare-cgroup-try',
    ...(options.network ? ['--unshare-net'] : []),
    ...(options.root ? ['--cap-drop', 'ALL'] : []),
    // (and CAP_DAC_READ_SEARCH, to change into nobody's 0700 own folder before becoming nobody)
    ...(options.root && options.dropsToNobody
      ? ['--cap-add', 'CAP_SETUID', '--cap-add', 'CAP_SETGID', '--cap-add', 'CAP_DAC_READ_SEARCH']
      : []),
    '--ro-bind',
    '/',
    '/',
    '--dev',
    '/dev',
    ...(options.sized ? ['--perms', '1777', '--size', String(BOUNDS.shmBytes), '--tmpfs', '/dev/shm'] : []),
    '--proc',
    '/proc',
  ];
}
