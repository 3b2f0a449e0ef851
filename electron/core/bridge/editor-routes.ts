import type { IncomingMessage } from 'node:http';
import {
  BackupRestoreRequestSchema,
  EditorCliRoutes,
  EditorsUnsyncRequestSchema,
  ImportRequestSchema,
  type BackupRestoreResult,
  type EditorsUnsyncResult,
  type ImportDone,
} from '../../../shared/editor-report.ts';
import { EditorIdSchema, type EditorId } from '../../../shared/editors.ts';
import {
  EditorExcludeRequestSchema,
  EditorRestoreRequestSchema,
  EditorsSyncRequestSchema,
  EditorUnsyncRequestSchema,
  UiRoutes,
  type EditorRestartResult,
  type EditorsResponse,
  type EditorsSyncResult,
  type EditorUnsyncResult,
} from '../../../shared/ui-api.ts';
import { StaleImportListing } from '../editors/import.ts';
import { EDITORS } from '../editors/registry.ts';
import { fileReport, importDone } from '../editors/report.ts';
import { syncResult, unsyncResult } from '../editors/report.ts';
import type { EditorSyncService } from '../editors/service.ts';
import { describeError } from '../errors.ts';
import type { HomePaths } from '../home.ts';
import type { Keychain } from '../secrets/keychain.ts';
import type { ServerEntry } from '../server-entry.ts';
import type { AppStateStore } from '../trust/app-state.ts';
import { decodePathSegment, HttpError, readJsonAs } from './http-util.ts';
import type { ApiCaller } from './ui-auth.ts';

/** What the editor routes use of the core beyond editor sync: which servers and exclusions there are. */
export interface EditorRoutesCore {
  readonly home: Pick<HomePaths, 'serversFile'>;
  readonly state: Pick<AppStateStore, 'editorSettings'>;
  readonly servers: { entries(): ReadonlyMap<string, ServerEntry> };
}

export interface EditorRoutesOptions {
  keychain: Keychain;
  /** editor sync, once `serve` has started it (undefined: not part of this process) */
  editors: () => EditorSyncService | undefined;
}

/**
 * /api/editors…: every editor's state and the diff a sync would make, sync now (with a selection),
 * unsync, exclude a server, restore a backup, restart Claude Desktop; and the CLI's editor commands
 * while this Switchboard runs (control token only). `handle` answers undefined for what it does not own.
 */
export function createEditorRoutes(core: EditorRoutesCore, options: EditorRoutesOptions) {
  const { keychain } = options;

  async function handle(req: IncomingMessage, path: string, caller: ApiCaller): Promise<object | undefined> {
    const method = req.method ?? 'GET';
    if (method === 'GET' && path === UiRoutes.editors) return await editors();
    if (method !== 'POST') return undefined;
    if (path === UiRoutes.editorsSync) return await syncEditors(req);
    if (
      path === EditorCliRoutes.unsync ||
      path === EditorCliRoutes.import ||
      path === EditorCliRoutes.restore
    ) {
      // The CLI's editor commands while this Switchboard runs (they import and approve, or undo
      // what was written): the control token's, not a browser session's.
      if (caller !== 'control-token')
        throw new HttpError(403, `${path} is for the switchboard command line (the control token)`);
      if (path === EditorCliRoutes.unsync) return await unsyncForCli(req);
      if (path === EditorCliRoutes.import) return await importForCli(req);
      return await restoreForCli(req);
    }
    const action = /^\/api\/editors\/([^/]+)\/(restore|unsync|exclude|restart)$/.exec(path);
    if (!action) return undefined;
    const editor = decodePathSegment(action[1] ?? '');
    switch (action[2]) {
      case 'restore':
        return await restoreBackup(req, editor);
      case 'unsync':
        return await unsyncEditor(req, editor);
      case 'exclude':
        return await excludeServer(req, editor);
      default:
        return await restartEditor(editor);
    }
  }

  function editorSync(): EditorSyncService {
    const service = options.editors();
    if (!service) throw new HttpError(404, 'editor sync is not running in this Switchboard');
    return service;
  }

  /** Every editor: installed or not, the state of its file, and the diff a sync would make now (dry run). */
  async function editors(): Promise<EditorsResponse> {
    const service = options.editors();
    return service ? { available: true, editors: await service.views() } : { available: false, editors: [] };
  }

  async function syncEditors(req: IncomingMessage): Promise<EditorsSyncResult> {
    const { editor, exclude, include } = await readJsonAs(req, EditorsSyncRequestSchema);
    if ((exclude || include) && !editor)
      throw new HttpError(400, 'exclude and include need the editor they are for');
    const selection = exclude || include ? { exclude: exclude ?? [], include: include ?? [] } : undefined;
    return syncResult(await editorSync().syncNow(editor, selection));
  }

  async function restoreBackup(req: IncomingMessage, editor: string): Promise<{ ok: true }> {
    const id = EditorIdSchema.safeParse(editor);
    if (!id.success) throw new HttpError(404, `no editor named "${editor}"`);
    const { backup } = await readJsonAs(req, EditorRestoreRequestSchema);
    const service = editorSync();
    const meta = service.engine.backups.list().find((b) => b.id === backup);
    if (!meta || meta.editor !== (id.data satisfies EditorId))
      throw new HttpError(404, `no backup "${backup}" of ${EDITORS[id.data].label}`);
    // In the service's queue, as every write of an editor's file here: no drift repair in between.
    await service.restore(id.data, backup, () => keychain);
    return { ok: true };
  }

  /** `switchboard unsync` while this Switchboard runs: one run over the editors asked for (or all). */
  async function unsyncForCli(req: IncomingMessage): Promise<EditorsUnsyncResult> {
    const { editors, restoreSecrets } = await readJsonAs(req, EditorsUnsyncRequestSchema);
    const reports = await editorSync().unsyncEditors(editors, restoreSecrets, () => keychain);
    return { editors: reports.map(fileReport) };
  }

  /** `switchboard import --yes` while this Switchboard runs: exactly what the CLI listed, or nothing. */
  async function importForCli(req: IncomingMessage): Promise<ImportDone> {
    const { from, listing } = await readJsonAs(req, ImportRequestSchema);
    let result;
    try {
      result = await editorSync().importFrom(from, listing, keychain);
    } catch (err) {
      if (err instanceof StaleImportListing) throw new HttpError(409, describeError(err));
      throw err;
    }
    return importDone(result);
  }

  /** `switchboard backups restore ID` while this Switchboard runs. */
  async function restoreForCli(req: IncomingMessage): Promise<BackupRestoreResult> {
    const { backup } = await readJsonAs(req, BackupRestoreRequestSchema);
    const service = editorSync();
    const meta = service.engine.backups.list().find((b) => b.id === backup);
    if (!meta) throw new HttpError(404, `no backup "${backup}" (switchboard backups lists them)`);
    const result = await service.restore(meta.editor, backup, () => keychain);
    return {
      editor: meta.editor,
      file: result.file,
      existed: meta.existed,
      exact: result.exact,
      saved: result.saved ?? null,
    };
  }

  /** Takes Switchboard's entries out of one editor's file and gives back the user's (see EditorSync.unsync). */
  async function unsyncEditor(req: IncomingMessage, editor: string): Promise<EditorUnsyncResult> {
    const id = EditorIdSchema.safeParse(editor);
    if (!id.success) throw new HttpError(404, `no editor named "${editor}"`);
    const { restoreSecrets } = await readJsonAs(req, EditorUnsyncRequestSchema);
    return unsyncResult(await editorSync().unsync(id.data, restoreSecrets, () => keychain));
  }

  /** Keeps a server out of one editor, or gives it back (`sync --editor E --exclude/--include`). */
  async function excludeServer(req: IncomingMessage, editor: string): Promise<EditorsSyncResult> {
    const id = EditorIdSchema.safeParse(editor);
    if (!id.success) throw new HttpError(404, `no editor named "${editor}"`);
    const { server, excluded } = await readJsonAs(req, EditorExcludeRequestSchema);
    // An exclusion left behind by a server since removed may still be taken off.
    const stale = !excluded && core.state.editorSettings(id.data).exclude.includes(server);
    if (!core.servers.entries().has(server) && !stale)
      throw new HttpError(404, `no server named "${server}" in ${core.home.serversFile}`);
    return syncResult(await editorSync().setExcluded(id.data, server, excluded));
  }

  /** Quits and reopens Claude Desktop (an editor that reads its file only at start), if it runs. */
  async function restartEditor(editor: string): Promise<EditorRestartResult> {
    const id = EditorIdSchema.safeParse(editor);
    if (!id.success) throw new HttpError(404, `no editor named "${editor}"`);
    if (!EDITORS[id.data].restartNotice)
      throw new HttpError(
        400,
        `${EDITORS[id.data].label} needs no restart: it reads its settings when they change`,
      );
    return editorSync().restart(id.data);
  }

  return { handle };
}
