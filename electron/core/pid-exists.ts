/**
 * Whether a process with this pid exists (signal 0 checks without sending anything; EPERM: it
 * exists, as another user's). A pid of 0 or below names a process group, not a process: none.
 * Imports nothing: the quick CLI path (cli/quick-instance.ts) uses it at start.
 */
export function pidExists(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
