import type { ServerSource } from '../../../shared/schema/state.ts';
import { readServersFile } from '../config/servers-file.ts';
import type { HomePaths } from '../home.ts';
import { AppStateStore } from '../trust/app-state.ts';
import { configHash } from '../trust/fingerprint.ts';

/**
 * Records in state.json where `name`'s entry, as servers.json has it now, came from: the approval
 * then says so also in another process (a running serve shows what `switchboard add` wrote) and
 * after a restart. Edited afterwards, the entry is a hand edit again (the record is bound to it).
 */
export function recordSource(
  home: HomePaths,
  name: string,
  source: ServerSource,
  state = new AppStateStore(home.stateFile),
): void {
  const file = readServersFile(home.serversFile);
  const config = file.ok ? file.servers.get(name) : undefined;
  if (config) state.noteSource(name, source, configHash(config), Date.now());
}
