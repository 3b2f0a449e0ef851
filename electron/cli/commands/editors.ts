import { parseArgs } from 'node:util';
import type { EditorId } from '../../../shared/editors.ts';
import { syncServers } from '../../core/editors/desired.ts';
import { allEditors } from '../../core/editors/registry.ts';
import type { CliContext } from '../context.ts';
import { table } from '../output.ts';
import { editorSync, loadCore } from './sync.ts';

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
}

/**
 * `switchboard editors [--json]`: every client Switchboard can sync, where its file is, whether it is
 * installed, and its state now (from a dry run: nothing is written).
 */
export async function editorsCommand(ctx: CliContext, argv: string[]): Promise<number> {
  const { values } = parseArgs({ args: argv, options: { json: { type: 'boolean' } }, strict: true });
  const core = await loadCore(ctx);
  const engine = editorSync(ctx, core);
  const servers = syncServers(core);
  const listings: EditorListing[] = [];
  for (const adapter of allEditors()) {
    const installed = engine.detected(adapter.id);
    const syncOn = core.state.editorSettings(adapter.id).enabled;
    const base = {
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
    listings.push({
      ...base,
      state: !syncOn ? 'off' : changes.length ? 'would-change' : 'in-sync',
      detail: !syncOn
        ? `turn on with: switchboard sync --editor ${adapter.id}`
        : changes.length
          ? `sync would ${changes.join('; ')}`
          : `${count} server${count === 1 ? '' : 's'}`,
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
