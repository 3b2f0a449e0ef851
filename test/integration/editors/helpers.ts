import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { EditorId } from '../../../shared/editors.ts';
import { TokenStore } from '../../../electron/core/tokens/token-store.ts';
import { EditorSync, type EditorSyncOptions } from '../../../electron/core/editors/engine.ts';
import { userDirs } from '../../../electron/core/user-dirs.mjs';
import { allEditors, EDITORS } from '../../../electron/core/editors/registry.ts';
import { AppStateStore } from '../../../electron/core/trust/app-state.ts';
import type { TempHome } from '../../helpers/temp-home.ts';

/** Where editor `id` keeps its settings in this temp HOME. */
export function editorFile(t: TempHome, id: EditorId): string {
  return EDITORS[id].file(userDirs(t.env));
}

/** Makes editors look installed (their folder exists), optionally with a file of the user's. */
export function install(t: TempHome, id: EditorId, content?: string): string {
  const file = editorFile(t, id);
  const detect = EDITORS[id].detectPath(userDirs(t.env));
  if (detect === file) {
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, content ?? '{}\n');
  } else {
    mkdirSync(detect, { recursive: true });
    if (content !== undefined) {
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, content);
    }
  }
  return file;
}

export function installAll(t: TempHome): void {
  for (const a of allEditors()) install(t, a.id);
}

export function engineFor(t: TempHome, options: Partial<EditorSyncOptions> = {}): EditorSync {
  return new EditorSync({
    home: t.home,
    env: t.env,
    state: new AppStateStore(t.home.stateFile),
    tokens: new TokenStore(t.home.tokens),
    port: 43117,
    isRunning: async () => false,
    ...options,
  });
}
