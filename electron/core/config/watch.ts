import { watch, type FSWatcher } from 'chokidar';
import { dirname } from 'node:path';
import { logToStderr, watchProblem } from '../fs/watch-problem.ts';

export interface WatchFileOptions {
  /** where a watcher error is said (default: serve's log, stderr) */
  log?: (line: string) => void;
  debounceMs?: number;
}

/**
 * Calls onChange whenever the file is created, changed, replaced (editors save by rename) or removed.
 * Watches the folder, not the file, so a rename-save or a file created later is still seen. Resolves
 * once the watcher is ready: a change made before then raised no event, so a caller that read the
 * file earlier reads it once more then.
 */
export async function watchFile(
  file: string,
  onChange: () => void,
  options: WatchFileOptions = {},
): Promise<{ close(): Promise<void> }> {
  const { log = logToStderr, debounceMs = 50 } = options;
  let timer: NodeJS.Timeout | undefined;
  const fire = () => {
    clearTimeout(timer);
    timer = setTimeout(onChange, debounceMs);
  };
  const watcher: FSWatcher = watch(dirname(file), {
    ignoreInitial: true,
    depth: 0,
    // Only this file's events matter; temp files from atomic saves are ignored by name below.
    ignored: (path: string) => path !== file && path !== dirname(file),
    awaitWriteFinish: { stabilityThreshold: 30, pollInterval: 10 },
  });
  watcher.on('all', (_event, path) => {
    if (path === file) fire();
  });
  watcher.on('error', (err) => log(watchProblem(file, err)));
  // Until chokidar is ready, a change could go unseen.
  await new Promise<void>((resolve) => watcher.once('ready', () => resolve()));
  return {
    close: async () => {
      clearTimeout(timer);
      await watcher.close();
    },
  };
}
