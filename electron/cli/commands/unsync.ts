import { parseArgs } from 'node:util';
import { allEditors, EDITORS } from '../../core/editors/registry.ts';
import { askYes, interactive } from '../prompt.ts';
import type { CliContext } from '../context.ts';
import { UsageError } from '../output.ts';
import { editorIds, editorSync, printFileReports } from './sync.ts';
import { InstanceClient } from '../instance.ts';
import { offlineState } from '../offline-core.ts';
import { fileReport } from '../../core/editors/report.ts';
import {
  UnsyncCliResultSchema,
  type EditorFileReport,
  type UnsyncCliResult,
} from '../../../shared/editor-report.ts';
import { EDITORS_LINE, usageOf } from '../help.ts';

const USAGE = `${usageOf('unsync')}\n${EDITORS_LINE}`;

/**
 * Removes every managed entry from editors' files and gives back the entries of the user's that
 * import replaced, as they were. When nothing else changed in a file since, its bytes are then
 * exactly the user's original ones — the secrets import moved into the keychain included, if the
 * person asks for them (once, on a terminal; or --restore-secrets). Without them, each secret's place
 * in the entry says where the value is and how to put it back. Sync is turned off for those editors
 * (so a running Switchboard does not put the entries back) until `sync --all` (or `sync --editor E`).
 */
export async function unsyncCommand(
  ctx: Pick<CliContext, 'home' | 'env' | 'output' | 'stdin' | 'keychain' | 'relay'>,
  argv: string[],
): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      editor: { type: 'string', multiple: true, default: [] },
      'restore-secrets': { type: 'boolean', default: false },
      'no-restore-secrets': { type: 'boolean', default: false },
      json: { type: 'boolean', default: false },
    },
    strict: true,
  });
  if (values['restore-secrets'] && values['no-restore-secrets'])
    throw new UsageError(`--restore-secrets and --no-restore-secrets exclude each other\n${USAGE}`);
  const editors = editorIds(values.editor, '--editor', USAGE);
  // servers.json may be broken: unsync does not need it.
  const core = offlineState(ctx);
  const engine = editorSync(ctx, core);

  // The secrets at stake: those import moved out of entries that now come back, and those an earlier
  // unsync held back. Asked about once, for every editor together.
  const targets = editors ?? allEditors().map((a) => a.id);
  const atStake = targets
    .map((editor) => {
      const { entries, heldBack } = engine.importedSecrets(editor);
      return { editor, names: [...new Set([...entries.flatMap((e) => e.secrets), ...heldBack])] };
    })
    .filter((s) => s.names.length > 0);
  let restoreSecrets = values['restore-secrets'];
  // --json never asks: stdout is one JSON document (without --restore-secrets the secrets stay in the keychain).
  if (
    atStake.length &&
    !restoreSecrets &&
    !values['no-restore-secrets'] &&
    !values.json &&
    interactive(ctx)
  ) {
    ctx.output.out('Your entries that import replaced come back as they were. Import moved their secrets');
    ctx.output.out('into the keychain:');
    for (const s of atStake)
      ctx.output.out(`  ${EDITORS[s.editor].label} (${engine.fileOf(s.editor)}): ${s.names.join(', ')}`);
    restoreSecrets = await askYes(
      ctx,
      'Put them back into those files as plain text? Anyone who can read a file can read them there. [y/N] ',
    );
  }

  // A running Switchboard does the writing: it keeps editors in sync and repairs drift, so a second
  // writer of the same files (and of state.json) would race it.
  const running = InstanceClient.connect(ctx.home);
  const reports: EditorFileReport[] = running
    ? (await running.unsyncEditors({ ...(editors ? { editors } : {}), restoreSecrets })).editors
    : (await engine.unsync(editors, { restoreSecrets, keychain: () => ctx.keychain() })).map(fileReport);
  const failed = reports.some((r) => r.outcome === 'failed');
  const syncOff = reports.filter((r) => r.outcome !== 'failed').map((r) => r.editor);
  if (values.json) {
    const result: UnsyncCliResult = { editors: reports, syncOff };
    ctx.output.out(JSON.stringify(UnsyncCliResultSchema.parse(result), null, 2));
    return failed ? 1 : 0;
  }
  if (running) ctx.output.out('Switchboard is running: it took its entries out of the editors.');
  printFileReports(
    ctx,
    reports.filter(
      (r) => r.outcome !== 'up-to-date' || r.message !== null || r.restored.length > 0 || editors,
    ),
  );
  const touched = reports.filter((r) => r.outcome === 'written').map((r) => r.editor);
  const again = editors ? editors.map((e) => ` --editor ${e}`).join('') : ' --all';
  ctx.output.out(
    touched.length
      ? `Sync is now off for ${touched.join(', ')}; turn it back on with: switchboard sync${again}`
      : 'No editor file had entries of Switchboard; sync is now off for ' +
          (editors ?? ['every editor']).join(', ') +
          `; turn it back on with: switchboard sync${again}`,
  );
  return failed ? 1 : 0;
}
