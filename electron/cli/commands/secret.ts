import { SecretValueRequestSchema } from '../../../shared/ui-api.ts';
import { UserError } from '../../core/errors.ts';
import { moveSecret } from '../../core/config/move-secret.ts';
import { withEditRecorded } from '../../core/services/source-record.ts';
import type { CliContext } from '../context.ts';
import { InstanceClient } from '../instance.ts';
import { cliKeychain } from '../instance-keychain.ts';
import { offlineSecrets } from '../offline-core.ts';
import { UsageError } from '../output.ts';
import { askYes, interactive } from '../prompt.ts';
import { approveCommand } from './trust.ts';
import { usageOf } from '../help.ts';

const USAGE = usageOf('secret');

export async function secretCommand(
  ctx: Pick<CliContext, 'home' | 'env' | 'output' | 'stdin' | 'keychain' | 'commandPath' | 'tokenFiles'>,
  argv: string[],
): Promise<number> {
  const [sub, ...rest] = argv;
  switch (sub) {
    case 'set': {
      const name = only(rest);
      const value = (await readAll(ctx.stdin)).replace(/\r?\n$/, '');
      if (value === '')
        throw new UserError('no secret value on stdin', {
          hint: `pipe it in: printf %s "$VALUE" | switchboard secret set ${name}`,
        });
      const checked = SecretValueRequestSchema.safeParse({ value });
      if (!checked.success)
        throw new UserError(`secret "${name}": ${checked.error.issues[0]?.message}`, {
          hint: `pipe the value in: printf %s "$VALUE" | switchboard secret set ${name}`,
        });
      // Through a running Switchboard, servers waiting for this secret start at once.
      const client = InstanceClient.connect(ctx.home);
      const restarted = client ? (await client.setSecret(name, value)).restarted : [];
      if (!client) await ctx.keychain().set(name, value);
      ctx.output.out(`Stored secret "${name}" in the keychain. Use it as \${secret:${name}}.`);
      if (restarted.length) ctx.output.out(`Restarted to use it: ${restarted.join(', ')}.`);
      return 0;
    }
    case 'list': {
      const json = rest[0] === '--json';
      if (rest.length > (json ? 1 : 0)) throw new UsageError(USAGE);
      // Through a running Switchboard: its keychain is the one its servers read (issue 36 item 2).
      const client = InstanceClient.connect(ctx.home);
      const report = client ? await client.secrets() : await (await offlineSecrets(ctx)).secrets.list();
      if (report.keychainError) throw new UserError(report.keychainError);
      if (json) {
        ctx.output.out(JSON.stringify(report, null, 2));
        return 0;
      }
      if (!report.secrets.length) {
        ctx.output.out('No secrets stored. Add one with: switchboard secret set NAME');
        return 0;
      }
      for (const secret of report.secrets) {
        const users = [...new Set(secret.usedBy.map((u) => u.server))];
        const used = users.length ? `  (used by ${users.join(', ')})` : '';
        ctx.output.out(`${secret.name}${secret.stored ? '' : '  — not in the keychain'}${used}`);
      }
      return 0;
    }
    case 'rm': {
      const force = rest.includes('--force');
      const name = only(rest.filter((a) => a !== '--force'));
      const users = (await offlineSecrets(ctx)).secrets.users(name);
      if (users.length && !force) {
        const warning = `${users.join(', ')} ${users.length === 1 ? 'uses' : 'use'} \${secret:${name}}: without it ${users.length === 1 ? 'it' : 'they'} cannot start.`;
        if (!interactive(ctx))
          throw new UserError(warning, {
            hint: `to delete it anyway: switchboard secret rm ${name} --force`,
          });
        if (!(await askYes(ctx, `${warning}\nDelete it anyway? [y/N] `))) {
          ctx.output.out(`Kept secret "${name}".`);
          return 1;
        }
      }
      const deleted = await cliKeychain(ctx).delete(name);
      if (!deleted) throw new UserError(`no secret named "${name}" in the keychain`);
      ctx.output.out(`Deleted secret "${name}".`);
      return 0;
    }
    case 'move': {
      const [server, key, secretName, ...extra] = rest;
      if (!server || !key || extra.length) throw new UsageError(USAGE);
      const stored = await withEditRecorded(ctx.home, server, 'secret-move', () =>
        moveSecret({
          serversFile: ctx.home.serversFile,
          keychain: cliKeychain(ctx),
          server,
          key,
          ...(secretName ? { secretName } : {}),
        }),
      );
      ctx.output.out(
        `Moved ${key} of "${server}" into the keychain as "${stored}"; servers.json now says \${secret:${stored}}.`,
      );
      ctx.output.out(
        `The server's config changed (the value is now a reference), so it needs your approval again.`,
      );
      // On a terminal, approve right here: approve shows the config as it now is and asks.
      if (interactive(ctx)) return approveCommand(ctx, [server]);
      ctx.output.out(`Approve it with: switchboard approve ${server}`);
      return 0;
    }
    default:
      throw new UsageError(USAGE);
  }
}

function only(rest: string[]): string {
  if (rest.length !== 1 || !rest[0]) throw new UsageError(USAGE);
  return rest[0];
}

async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  return Buffer.concat(chunks).toString('utf8');
}
