import { parseArgs } from 'node:util';
import type { EditorId } from '../../../shared/editors.ts';
import { EditorRestartResultSchema, type EditorRestartResult } from '../../../shared/ui-api.ts';
import { appControlFor } from '../../core/desktop-apps/index.ts';
import { syncServers } from '../../core/editors/desired.ts';
import { allEditors, EDITORS, isEditorId } from '../../core/editors/registry.ts';
import { restartCommand, restartEditor } from '../../core/editors/restart.ts';
import { restartState } from '../../core/editors/restart-watch.ts';
import type { CliContext } from '../context.ts';
import { InstanceClient } from '../instance.ts';
import { table, UsageError } from '../output.ts';
import { editorSync, loadCore } from './sync.ts';

const RESTART_USAGE = `usage: switchboard editors restart EDITOR [--json]   (editors that read their settings only at start: ${allEditors()
  .filter((a) => a.restartNotice)
  .map((a) => a.id)
  .join(', ')})`;

/** One supported client as `switchboard editors` lists it. */
export interface EditorListing {
  id: EditorId;
  label: string;
  file: string;
  format: string;
  installed: boolean;
  /** sync turned on for it (`switchboard unsync` turns it off) */
  syncOn: boolean;
  /** in-sync | would-change | not-installed | off | error */
  state: 'in-sync' | 'would-change' | 'not-installed' | 'off' | 'error';
  /** what a sync would add, change or remove, or what is wrong */
  detail: string;
  /** the file holds the bridge token; otherwise the client reads it when it connects */
  tokenInFile: boolean;
  /** it reads its file only at start and runs since before Switchboard last wrote it (Claude Desktop) */
  restartPending: boolean;
}

/**
 * `switchboard editors [--json]`: every client Switchboard can sync, where its file is, whether it is
 * installed, and its state now (from a dry run: nothing is written).
 */
export async function editorsCommand(
  ctx: Pick<CliContext, 'home' | 'env' | 'output' | 'commandPath' | 'tokenFiles' | 'relay'>,
  argv: string[],
): Promise<number> {
  if (argv[0] === 'restart') return restartCommandRun(ctx, argv.slice(1));
  if (argv[0] === 'tools') return (await import('./editor-tools.ts')).editorToolsCommand(ctx, argv.slice(1));
  const { values } = parseArgs({ args: argv, options: { json: { type: 'boolean' } }, strict: true });
  const core = await loadCore(ctx);
  const engine = editorSync(ctx, core);
  const servers = syncServers(core);
  const control = appControlFor(process.platform, ctx.env);
  const listings: EditorListing[] = [];
  for (const adapter of allEditors()) {
    const installed = engine.detected(adapter.id);
    const settings = core.state.editorSettings(adapter.id);
    const syncOn = settings.enabled;
    const restartPending = installed && (await restartState(adapter, settings.writtenAt, control)).pending;
    const base = {
      restartPending,
      id: adapter.id,
      label: adapter.label,
      file: engine.fileOf(adapter.id),
      format: adapter.format.name,
      installed,
      syncOn,
      tokenInFile: adapter.tokenInFile,
    };
    if (!installed) {
      listings.push({ ...base, state: 'not-installed', detail: `no ${engine.detectPathOf(adapter.id)}` });
      continue;
    }
    const [preview] = await engine.sync(servers, { editors: [adapter.id], dryRun: true });
    if (preview?.status === 'failed') {
      listings.push({ ...base, state: 'error', detail: preview.problem ?? 'cannot be read' });
      continue;
    }
    const changes = [
      preview?.added.length ? `add ${preview.added.join(', ')}` : '',
      preview?.updated.length ? `update ${preview.updated.join(', ')}` : '',
      preview?.removed.length ? `remove ${preview.removed.join(', ')}` : '',
    ].filter(Boolean);
    const count = preview?.servers.length ?? 0;
    const detail = !syncOn
      ? `turn on with: switchboard sync --editor ${adapter.id}`
      : changes.length
        ? `sync would ${changes.join('; ')}`
        : `${count} server${count === 1 ? '' : 's'}`;
    listings.push({
      ...base,
      state: !syncOn ? 'off' : changes.length ? 'would-change' : 'in-sync',
      detail: restartPending
        ? `${detail}; running with its previous settings: ${restartCommand(adapter.id)}`
        : detail,
    });
  }
  if (values.json) {
    ctx.output.out(JSON.stringify(listings, null, 2));
    return 0;
  }
  const rows = [['EDITOR', 'ID', 'STATE', 'TOKEN', 'DETAIL', 'FILE']];
  for (const l of listings)
    rows.push([l.label, l.id, l.state, l.tokenInFile ? 'in file' : 'read at connect', l.detail, l.file]);
  ctx.output.out(table(rows));
  return 0;
}

/**
 * `switchboard editors restart EDITOR [--json]`: quits and reopens an editor that reads its settings
 * only at start (Claude Desktop), if it runs; through the running Switchboard when there is one (its
 * Editors view then updates at once), else from here. Not running: nothing is started.
 */
async function restartCommandRun(
  ctx: Pick<CliContext, 'home' | 'env' | 'output'>,
  argv: string[],
): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    options: { json: { type: 'boolean', default: false } },
    allowPositionals: true,
    strict: true,
  });
  const [editor, ...extra] = positionals;
  if (!editor || extra.length) throw new UsageError(RESTART_USAGE);
  if (!isEditorId(editor)) throw new UsageError(`unknown editor "${editor}"\n${RESTART_USAGE}`);
  const adapter = EDITORS[editor];
  if (!adapter.restartNotice)
    throw new UsageError(
      `${adapter.label} needs no restart: it reads its settings when they change\n${RESTART_USAGE}`,
    );
  const running = InstanceClient.connect(ctx.home);
  let result: EditorRestartResult;
  if (running) result = await running.restartEditor(editor);
  // Not running: nothing of Switchboard's is needed, only the OS's processes.
  else result = await restartEditor(adapter, appControlFor(process.platform, ctx.env));
  if (values.json) ctx.output.out(JSON.stringify(EditorRestartResultSchema.parse(result), null, 2));
  else ctx.output.out(result.message);
  return 0;
}
