import type { ServerSource, SwitchboardEdit } from '../../../shared/schema/state.ts';
import { readServersFile } from '../config/servers-file.ts';
import type { HomePaths } from '../home.ts';
import { AppStateStore } from '../trust/app-state.ts';
import { configHash } from '../trust/fingerprint.ts';

/**
 * Records in state.json where `name`'s entry, as servers.json has it now, came from: the approval
 * then says so also in another process (a running serve shows what `switchboard add` wrote) and
 * after a restart. Edited afterwards, the entry is a hand edit again (the record is bound to it).
 * Returns the hash it was bound to (undefined: servers.json has no such entry).
 */
export function recordSource(
  home: HomePaths,
  name: string,
  source: ServerSource,
  state = new AppStateStore(home.stateFile),
  edits: SwitchboardEdit[] = [],
): string | undefined {
  const hash = writtenHash(home, name);
  if (hash) state.noteSource(name, source, hash, Date.now(), edits);
  return hash;
}

/**
 * Runs `run`, Switchboard's own change to `name`'s entry at the person's command (a grant, a moved
 * secret; undefined `edit`: one an approval need not name, as a tools filter or enabled), and moves
 * the entry's source record to the entry it wrote: the approval then still says where the entry came
 * from (an entry with no record is the person's own hand edit) and adds what Switchboard changed,
 * rather than calling Switchboard's edit a hand edit. A later hand edit matches no record again.
 */
export async function withEditRecorded<T>(
  home: HomePaths,
  name: string,
  edit: SwitchboardEdit | undefined,
  run: () => T | Promise<T>,
  state = new AppStateStore(home.stateFile),
): Promise<T> {
  const before = writtenHash(home, name);
  const origin = (before && state.originOf(name, before)) || { source: 'hand-edit' as const, edits: [] };
  const result = await run();
  const after = writtenHash(home, name);
  if (after && after !== before) {
    const edits = !edit || origin.edits.includes(edit) ? origin.edits : [...origin.edits, edit];
    state.noteSource(name, origin.source, after, Date.now(), edits);
  }
  return result;
}

/** The hash source records are bound to, of `name`'s entry as servers.json has it now. */
function writtenHash(home: HomePaths, name: string): string | undefined {
  const file = readServersFile(home.serversFile);
  const config = file.ok ? file.servers.get(name) : undefined;
  return config ? configHash(config) : undefined;
}
