import { AGGREGATE_ENTRY } from '../../../shared/bridge.ts';
import type { EditorId } from '../../../shared/editors.ts';
import type { SyncRequest } from './file-sync.ts';

/**
 * An editor in discovery mode reaches every server through its one AGGREGATE_ENTRY. The user's
 * entries import took over (of servers this editor gets) are replaced by that entry as per-server mode
 * replaces each by its server's: the first one's place is the entry's, the others are taken out, and
 * all are kept for unsync. Left in the file, the editor would run its own copy of each server beside
 * Switchboard's (with any secret pasted into it). Entries import did not take stay the user's.
 */
export function adoptThroughAggregate(
  request: SyncRequest,
  editor: EditorId,
  served: readonly string[],
): SyncRequest {
  const adopt = request.adopt?.get(editor);
  if (!request.adopt || !adopt) return request;
  const through = new Map<string, string>();
  for (const [entry, server] of adopt) if (served.includes(server)) through.set(entry, AGGREGATE_ENTRY);
  return { ...request, adopt: new Map([...request.adopt, [editor, through]]) };
}
