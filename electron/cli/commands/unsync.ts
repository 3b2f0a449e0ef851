import { parseArgs } from 'node:util';
import { allEditors } from '../../core/editors/registry.ts';
import type { CliContext } from '../context.ts';
import { editorIds, editorSync, printReports } from './sync.ts';
import { offlineCore } from '../offline-core.ts';

const USAGE = `usage: switchboard unsync [--editor E]…\neditors: ${allEditors()
  .map((a) => a.id)
  .join(', ')}`;

/**
 * Removes every managed entry from editors' files. When nothing else changed in a file since
 * Switchboard first wrote it, its bytes are then exactly the user's original ones. Sync is turned off
 * for those editors (so a running Switchboard does not put the entries back) until `sync --editor E`.
 */
export async function unsyncCommand(ctx: CliContext, argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: { editor: { type: 'string', multiple: true, default: [] } },
    strict: true,
  });
  const editors = editorIds(values.editor, '--editor', USAGE);
  // servers.json may be broken: unsync does not need it.
  const core = await offlineCore(ctx);
  const engine = editorSync(ctx, core);
  const reports = await engine.unsync(editors);
  printReports(
    ctx,
    reports.filter((r) => r.status !== 'unchanged' || r.servers.length > 0 || editors),
  );
  const touched = reports.filter((r) => r.status === 'written').map((r) => r.editor);
  ctx.output.out(
    touched.length
      ? `Sync is now off for ${touched.join(', ')}; turn it back on with: switchboard sync --editor E`
      : 'No editor file had entries of Switchboard; sync is now off for ' +
          (editors ?? ['every editor']).join(', ') +
          '.',
  );
  return reports.some((r) => r.status === 'failed') ? 1 : 0;
}
