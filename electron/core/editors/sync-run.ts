import type { EditorId } from '../../../shared/editors.ts';
import type { EditorSettings } from '../../../shared/schema/state.ts';
import type { AppStateStore } from '../trust/app-state.ts';
import type { Backups } from './backups.ts';

/** One sync over several editors: state changes to save once, backups already taken. */
export interface SyncRun {
  changes: [EditorId, (settings: EditorSettings) => void][];
  /** true if the original of this file is backed up already; false once (the caller then takes it) */
  hasOriginal(editor: EditorId, target: string): boolean;
}

/** A run that has changed nothing yet; the backups are listed the first time a file asks. */
export function newSyncRun(backups: Pick<Backups, 'list'>): SyncRun {
  let originals: Set<string> | undefined;
  return {
    changes: [],
    hasOriginal: (editor, target) => {
      originals ??= new Set(
        backups
          .list()
          .filter((b) => b.reason === 'original')
          .map((b) => `${b.editor}\0${b.target}`),
      );
      const key = `${editor}\0${target}`;
      if (originals.has(key)) return true;
      originals.add(key); // the caller takes it now
      return false;
    },
  };
}

/** What a sync learnt about the files (layouts, on/off) goes into state.json in one write. */
export function saveSyncRun(state: Pick<AppStateStore, 'updateEditors'>, run: SyncRun): void {
  if (!run.changes.length) return;
  state.updateEditors((editor) => {
    for (const [id, change] of run.changes) change(editor(id));
  });
}
