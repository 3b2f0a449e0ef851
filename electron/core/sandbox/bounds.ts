/**
 * How much of this computer one sandboxed server may take (Linux): the size of its private temp
 * folders (tmpfs, which is memory), and rlimits set by prlimit as the first program inside the
 * sandbox. There is no cgroup (systemd's user manager is not everywhere, cgroup v1 needs root), so
 * memory is bounded per process, not per server. docs/decisions/sandbox.md says why
 * these figures.
 */
const MiB = 1024 * 1024;
const GiB = 1024 * MiB;

export const BOUNDS = {
  /** /tmp and /var/tmp, each (a tmpfs counts against RAM; the default is half of it) */
  tempBytes: 512 * MiB,
  /** /dev/shm (Chromium's shared memory: Docker's 64 MiB is known to be too small for it) */
  shmBytes: 256 * MiB,
  /** tasks (processes and threads) of the server's user in its sandbox: stops a fork bomb */
  tasks: 1024,
  /** a process's private writable memory (RLIMIT_DATA: counts the heap, not reserved address space) */
  dataBytes: 4 * GiB,
  /** the largest file a process may write (RLIMIT_FSIZE; past it the write fails or SIGXFSZ ends it) */
  fileBytes: 4 * GiB,
} as const;

/** The prlimit line that starts a sandboxed program with the bounds above. */
export function prlimitPrefix(prlimit: string): string[] {
  return [
    prlimit,
    `--nproc=${BOUNDS.tasks}`,
    `--data=${BOUNDS.dataBytes}`,
    `--fsize=${BOUNDS.fileBytes}`,
    // a core dump of a bounded process is a file too; a server has no use for one
    '--core=0',
    '--',
  ];
}
