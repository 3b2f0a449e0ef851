/**
 * What every sandbox starts from: its own pid, IPC, UTS and cgroup namespaces (and network, unless
 * open), no capabilities when run as root, the system read-only, a minimal /dev and a fresh /proc.
 */
export function bwrapBase(options: { network: boolean; root: boolean }): string[] {
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
    '--proc',
    '/proc',
  ];
}
