import { watch, type FSWatcher } from 'chokidar';
import { dirname } from 'node:path';

/**
 * Calls onChange whenever the file is created, changed, replaced (editors save by rename) or removed.
 * Watches the folder, not the file, so a rename-save or a file created later is still seen.
 */
export async function watchFile(
  file: string,
  onChange: () => void,
  debounceMs = 50,
): Promise<{ close(): Promise<void> }> {
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
  // Until chokidar is ready, a change could go unseen.
  await new Promise<void>((resolve) => watcher.once('ready', () => resolve()));
  return {
    close: async () => {
      clearTimeout(timer);
      await watcher.close();
    },
  };
}
