import type { ServerSource, SwitchboardEdit } from '../../../shared/schema/state.ts';

/** What a route that writes servers.json uses of the core: where a server came from, and applying the file. */
export interface ServersEditCore {
  readonly servers: {
    noteSource(name: string, source: ServerSource): void;
    /** Switchboard's own edit of an entry (a grant, a moved secret): its source stays, the edit is added */
    withEditRecorded<T>(
      name: string,
      edit: SwitchboardEdit | undefined,
      run: () => T | Promise<T>,
    ): Promise<T>;
    /** reads servers.json again (the core is not running: nothing to apply) */
    load(): void;
  };
  readonly lifecycle: {
    readonly running: boolean;
    /** reads servers.json again and applies it (the core is running) */
    reload(): void;
  };
}

/** servers.json was edited: the file watcher would pick the edit up too; now, the answer reflects it. */
export function applyServersEdit(core: ServersEditCore): void {
  if (core.lifecycle.running) core.lifecycle.reload();
  else core.servers.load();
}
