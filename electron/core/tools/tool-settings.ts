import type { EditorToolsChange, ServerToolsChange } from '../../../shared/editor-tools.ts';
import { EDITOR_LABELS, type EditorId } from '../../../shared/editors.ts';
import { ToolFilterSchema, type ToolFilter } from '../../../shared/schema/servers.ts';
import type { EditorSettings } from '../../../shared/schema/state.ts';
import { toggleTool } from '../../../shared/tool-filter.ts';
import { readServerValue, setServerValue } from '../config/edit.ts';
import { UserError } from '../errors.ts';

/** Where an editor's settings are kept (state.json: AppStateStore). */
export interface EditorSettingsStore {
  editorSettings(editor: string): EditorSettings;
  updateEditorSettings(editor: string, update: (settings: EditorSettings) => void): EditorSettings;
}

/**
 * Changes which tools an editor gets: one tool switched, a server's whole selection, or discovery
 * mode. Kept in state.json (per-editor settings, like its server selection), never in servers.json.
 * Returns what changed: the tools it gets, discovery mode (its file changes then), or nothing.
 */
export function changeEditorTools(
  store: EditorSettingsStore,
  editor: EditorId,
  change: EditorToolsChange,
): 'tools' | 'discovery' | 'nothing' {
  const before = JSON.stringify(store.editorSettings(editor));
  if ('discovery' in change) {
    store.updateEditorSettings(editor, (s) => {
      if (change.discovery) s.discovery = true;
      else delete s.discovery;
    });
    return JSON.stringify(store.editorSettings(editor)) === before ? 'nothing' : 'discovery';
  }
  let selection: ToolFilter | undefined;
  if ('selection' in change) selection = change.selection ?? undefined;
  else {
    const current = store.editorSettings(editor).tools?.[change.server];
    const result = toggleTool(current, change.tool, change.on);
    if ('blockedBy' in result)
      throw new UserError(
        `"${change.tool}" of ${change.server} is left out for ${EDITOR_LABELS[editor]} by the pattern "${result.blockedBy}"`,
        { hint: `change that pattern: switchboard editors tools ${editor} ${change.server} --selection …` },
      );
    selection = result.filter;
  }
  store.updateEditorSettings(editor, (s) => {
    const tools = Object.fromEntries(
      Object.entries(s.tools ?? {}).filter(([name]) => name !== change.server),
    );
    if (selection) tools[change.server] = selection;
    if (Object.keys(tools).length) s.tools = tools;
    else delete s.tools;
  });
  return JSON.stringify(store.editorSettings(editor)) === before ? 'nothing' : 'tools';
}

/**
 * Changes a server's own `tools` filter in servers.json, as a comment-preserving edit: one tool
 * switched, or the whole filter (null: the field goes, every tool is offered).
 */
export function changeServerTools(
  file: string,
  server: string,
  change: ServerToolsChange,
): ToolFilter | undefined {
  let filter: ToolFilter | undefined;
  if ('filter' in change) filter = change.filter ?? undefined;
  else {
    const written = readServerValue(file, server, ['tools']);
    const current = ToolFilterSchema.optional().safeParse(written);
    if (!current.success)
      throw new UserError(`server "${server}" has a "tools" field that is not valid in ${file}`, {
        hint: 'fix it by hand first: {"include": [...], "exclude": [...]}',
      });
    const result = toggleTool(current.data, change.tool, change.on);
    if ('blockedBy' in result)
      throw new UserError(
        `"${change.tool}" is turned off by the pattern "${result.blockedBy}" in the "tools" of server "${server}"`,
        { hint: `change that pattern in ${file}` },
      );
    filter = result.filter;
  }
  setServerValue(file, server, ['tools'], filter);
  return filter;
}
