import type { EditorView } from '../../../shared/ui-api.ts';

/** The editors the first-run notice of automatic sync names, by label. */
export interface SyncNoticeEditors {
  /** found, and sync on for them: the next approval writes their files */
  synced: string[];
  /** found, but sync is turned off for them (by `unsync`, or in Editors): they get nothing now */
  off: string[];
}

/**
 * Which editors the notice names. An editor whose sync is off is still on this computer: after
 * `unsync` the notice must not say that no editor was found.
 */
export function syncNoticeEditors(editors: readonly EditorView[]): SyncNoticeEditors {
  const found = editors.filter((e) => e.state !== 'not-installed');
  return {
    synced: found.filter((e) => e.state !== 'disabled').map((e) => e.label),
    off: found.filter((e) => e.state === 'disabled').map((e) => e.label),
  };
}
