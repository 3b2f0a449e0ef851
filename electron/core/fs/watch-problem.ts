import { describeError } from '../errors.ts';

/**
 * The line serve logs when a file watcher reports an error (which would otherwise be an unhandled
 * 'error' event) or cannot be made: what is watched, that its edits may go unseen (or `meanwhile`,
 * what is done instead), and what to do about it.
 */
export function watchProblem(
  what: string,
  err: unknown,
  meanwhile = 'changes to it may go unseen until Switchboard restarts',
): string {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  const fix =
    code === 'ENOSPC'
      ? "raise the system's limit of watched files (sudo sysctl fs.inotify.max_user_watches=524288), then restart Switchboard"
      : code === 'EMFILE'
        ? 'raise the limit of open files (ulimit -n), then restart Switchboard'
        : 'restart Switchboard to follow it again';
  return `cannot watch ${what} (${describeError(err)}): ${meanwhile}. To fix it: ${fix}.`;
}

/** Where watch problems go by default: serve's log (its stderr). */
export const logToStderr = (line: string): void => void process.stderr.write(line + '\n');
