import { BOUNDS } from './bounds.ts';

/**
 * What every sandbox starts from: its own pid, IPC, UTS and cgroup namespaces (and network, unless
 * open), no capabilities when run as root, the system read-only, a minimal /dev with a bounded
 * /dev/shm, and a fresh /proc. `sized`: bubblewrap takes `--size` (0.5 and later; support.ts tries it).
 */
export function bwrapBase(options: { network: boolean; root: boolean; sized?: boolean }): string[] {
  return [
    '--die-with-parent',
    '--unshare-pid',
    '--unshare-ipc',
    '--unshare-uts',
    '--unshare-cgroup-try',
    ...(options.network ? ['--unshare-net'] : []),
    ...(options.root ? ['--cap-drop', 'ALL'] : []),
    '--ro-bind',
    '/',
    '/',
    '--dev',
    '/dev',
    ...(options.sized ? ['--size', String(BOUNDS.shmBytes), '--tmpfs', '/dev/shm'] : []),
    '--proc',
    '/proc',
  ];
}
