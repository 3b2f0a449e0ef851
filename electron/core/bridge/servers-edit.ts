/** What a route that writes servers.json uses of the core to apply the file. */
export interface ServersEditCore {
  readonly servers: {
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
