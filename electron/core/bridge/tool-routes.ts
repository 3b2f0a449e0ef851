import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  EditorToolsChangeSchema,
  ServerToolsChangeSchema,
  type EditorToolsView,
} from '../../../shared/editor-tools.ts';
import { EditorIdSchema, type EditorId } from '../../../shared/editors.ts';
import type { ToolFilter } from '../../../shared/schema/servers.ts';
import { editorToolsView } from '../tools/editor-tools.ts';
import { changeEditorTools, changeServerTools, type EditorSettingsStore } from '../tools/tool-settings.ts';
import type { ToolGate } from '../trust/tool-pins.ts';
import { readServerValue } from '../config/edit.ts';
import type { ProjectOrigin } from '../projects/project-service.ts';
import { projectServerEditRefusal } from '../projects/project-server-edits.ts';
import { decodePathSegment, HttpError, readJsonAs, sendJson, sendUserError } from './http-util.ts';

/** What the tool routes read and change. */
export interface ToolRoutesDeps {
  serversFile: string;
  state: EditorSettingsStore;
  /** is there a server of this name in servers.json */
  hasServer(name: string): boolean;
  /** the servers this editor gets (approved, enabled, selected for it), by name */
  serversOf(editor: EditorId): string[];
  /** a server's tools now, held-back ones too, and its pin gate; undefined: not listed yet */
  listing(server: string): { all: readonly Tool[]; gate: ToolGate | undefined } | undefined;
  filter(server: string): ToolFilter | undefined;
  /** the tools an editor called in the last hour, by server */
  calledBy(editor: EditorId): ReadonlyMap<string, ReadonlySet<string>>;
  /** where a project server comes from (its tool filter is its project file's, not servers.json's) */
  originOf?(name: string): Pick<ProjectOrigin, 'project' | 'file'> | undefined;
  /** runs Switchboard's edit of a server's entry, which keeps its source (services/source-record.ts) */
  keepingSource<T>(name: string, run: () => T): Promise<T>;
  /** servers.json was edited: apply it now (the watcher would too, later) */
  reload(): void;
  /** the editor's tools changed: its sessions list again; `discovery`: its file changes too */
  editorChanged(editor: EditorId, discovery: boolean): Promise<void>;
}

/**
 * /api/editors/<id>/tools (GET the editor's tools view, POST a change) and POST
 * /api/servers/<name>/tools (a change to the server's own filter in servers.json). `handle` returns
 * false for paths it does not own.
 */
export function createToolRoutes(deps: ToolRoutesDeps) {
  function view(editor: EditorId): EditorToolsView {
    return editorToolsView(editor, {
      servers: deps.serversOf(editor),
      listing: deps.listing,
      filter: deps.filter,
      settings: deps.state.editorSettings(editor),
      called: deps.calledBy(editor),
    });
  }

  async function handle(req: IncomingMessage, res: ServerResponse, path: string): Promise<boolean> {
    const method = req.method ?? 'GET';
    try {
      const editorMatch = /^\/api\/editors\/([^/]+)\/tools$/.exec(path);
      if (editorMatch) {
        const id = EditorIdSchema.safeParse(decodePathSegment(editorMatch[1] ?? ''));
        if (!id.success) throw new HttpError(404, `no editor named "${editorMatch[1] ?? ''}"`);
        if (method === 'GET') return done(res, view(id.data));
        if (method !== 'POST') return false;
        const change = await readJsonAs(req, EditorToolsChangeSchema);
        if ('server' in change && !deps.hasServer(change.server))
          throw new HttpError(404, `no server named "${change.server}" in ${deps.serversFile}`);
        const changed = changeEditorTools(deps.state, id.data, change);
        if (changed !== 'nothing') await deps.editorChanged(id.data, changed === 'discovery');
        return done(res, view(id.data));
      }
      const serverMatch = /^\/api\/servers\/([^/]+)\/tools$/.exec(path);
      if (serverMatch && method === 'POST') {
        const name = decodePathSegment(serverMatch[1] ?? '');
        if (!deps.hasServer(name))
          throw new HttpError(404, `no server named "${name}" in ${deps.serversFile}`);
        const origin = deps.originOf?.(name);
        if (origin && readServerValue(deps.serversFile, name) === undefined)
          throw new HttpError(409, projectServerEditRefusal(name, origin, 'edit'));
        const change = await readJsonAs(req, ServerToolsChangeSchema);
        const filter = await deps.keepingSource(name, () =>
          changeServerTools(deps.serversFile, name, change),
        );
        deps.reload();
        return done(res, { filter: filter ?? null });
      }
      return false;
    } catch (err) {
      return sendUserError(res, err);
    }
  }

  return { handle, view };
}

function done(res: ServerResponse, body: unknown): true {
  sendJson(res, 200, body);
  return true;
}
