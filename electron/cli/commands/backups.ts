import type { BackupRestoreResult } from '../../../shared/editor-report.ts';
import type { CliContext } from '../context.ts';
import { InstanceClient } from '../instance.ts';
import { table, UsageError } from '../output.ts';
import { editorSync } from './sync.ts';
import { offlineState } from '../offline-core.ts';
import { usageOf } from '../help.ts';

const USAGE = usageOf('backups');

export async function backupsCommand(
  ctx: Pick<CliContext, 'home' | 'env' | 'output' | 'keychain' | 'relay'>,
  argv: string[],
): Promise<number> {
  const json = argv.includes('--json');
  const [sub = 'list', ...rest] = argv.filter((a) => a !== '--json');
  const engine = editorSync(ctx, offlineState(ctx));
  switch (sub) {
    case 'list': {
      if (rest.length) throw new UsageError(USAGE);
      const list = engine.backups.list();
      if (json) {
        ctx.output.out(JSON.stringify({ backups: list }, null, 2));
        return 0;
      }
      if (!list.length) {
        ctx.output.out(
          `No backups yet (${engine.backups.dir}). Switchboard keeps one before it first changes an editor's file.`,
        );
        return 0;
      }
      const rows = [['ID', 'EDITOR', 'WHY', 'TAKEN', 'FILE']];
      for (const b of list) {
        rows.push([
          b.id,
          b.editor,
          b.reason === 'original' ? 'original' : b.reason === 'import' ? 'before import' : 'before a restore',
          new Date(b.createdAt).toLocaleString(),
          b.existed ? b.file : `${b.file} (did not exist)`,
        ]);
      }
      ctx.output.out(table(rows));
      return 0;
    }
    case 'restore': {
      const id = rest[0];
      if (!id || rest.length !== 1 || id.startsWith('-')) throw new UsageError(USAGE);
      // A running Switchboard does it (it writes the editors' files while it runs: no drift repair
      // may come in between), else it is done here.
      const running = InstanceClient.connect(ctx.home);
      const result: BackupRestoreResult = running
        ? await running.restoreBackup(id)
        : await engine.restore(id, ctx.keychain).then((r) => ({
            editor: r.meta.editor,
            file: r.file,
            existed: r.meta.existed,
            exact: r.exact,
            saved: r.saved ?? null,
          }));
      const what = result.existed
        ? `Restored ${result.file} from backup ${id}.`
        : `Removed ${result.file}: there was no such file when backup ${id} was taken.`;
      ctx.output.out(what);
      if (!result.exact)
        ctx.output.out(
          'Note: a secret in it changed in the keychain since, so the bytes differ from the backup there.',
        );
      if (result.saved) ctx.output.out(`What was there before is kept as backup ${result.saved}.`);
      ctx.output.out(
        `Sync is now off for ${result.editor}; turn it back on with: switchboard sync --editor ${result.editor}`,
      );
      return 0;
    }
    default:
      throw new UsageError(USAGE);
  }
}
