import type { TokenCreated, TokenInfo } from '../../../shared/api.ts';
import { EDITOR_IDS } from '../../../shared/editors.ts';
import { checkTokenName, TokenStore } from '../../core/tokens/token-store.ts';
import { UserError } from '../../core/errors.ts';
import type { CliContext } from '../context.ts';
import { InstanceClient } from '../instance.ts';
import { table, UsageError } from '../output.ts';
import { usageOf } from '../help.ts';

const USAGE = usageOf('token');

/**
 * Editor/client bridge tokens. With an instance running the command goes through its control API, so
 * a revoke takes effect on the running bridge at once; otherwise it works on the token files.
 */
export async function tokenCommand(
  ctx: Pick<CliContext, 'home' | 'output'>,
  argv: string[],
): Promise<number> {
  const [sub, ...rest] = argv;
  const client = () => InstanceClient.connect(ctx.home);
  const store = () => new TokenStore(ctx.home.tokens);
  switch (sub) {
    case 'create': {
      const name = only(rest);
      checkTokenName(name);
      const running = client();
      const created: TokenCreated = running ? await running.createToken(name) : store().create(name);
      // The token alone on stdout (so `$(switchboard token create ci)` works); the rest on stderr.
      ctx.output.out(created.token);
      ctx.output.err(
        `${created.replaced ? 'Replaced' : 'Created'} the token for "${name}"; this is the only time it is shown.\n` +
          `Stored in ${created.file} (readable only by you). Clients send it as: Authorization: Bearer <token>` +
          (created.replaced ? `\nThe previous "${name}" token no longer works.` : ''),
      );
      return 0;
    }
    case 'list': {
      const json = rest[0] === '--json';
      if (rest.length > (json ? 1 : 0)) throw new UsageError(USAGE);
      const running = client();
      const tokens: TokenInfo[] = running ? await running.tokens() : store().list();
      if (json) {
        ctx.output.out(JSON.stringify({ tokens }, null, 2));
        return 0;
      }
      if (!tokens.length) {
        ctx.output.out('No editor tokens yet. Create one with: switchboard token create NAME');
        return 0;
      }
      const rows = [['NAME', 'CREATED', 'FILE']];
      for (const t of tokens) rows.push([t.name, new Date(t.createdAt).toLocaleString(), t.file]);
      ctx.output.out(table(rows));
      return 0;
    }
    case 'revoke': {
      const name = only(rest);
      checkTokenName(name);
      const running = client();
      if (running) await running.revokeToken(name);
      else if (!store().revoke(name))
        throw new UserError(`no token named "${name}"`, { hint: 'see: switchboard token list' });
      ctx.output.out(`Revoked the token for "${name}"; the bridge refuses it from now on.`);
      if ((EDITOR_IDS as readonly string[]).includes(name)) {
        // Editor sync issues a synced editor a token whenever it writes that editor's file.
        ctx.output.out(
          `If ${name} is synced, its next sync gives it a new token; to cut it off, run: switchboard unsync --editor ${name}`,
        );
      }
      return 0;
    }
    default:
      throw new UsageError(USAGE);
  }
}

function only(rest: string[]): string {
  if (rest.length !== 1 || !rest[0] || rest[0].startsWith('-')) throw new UsageError(USAGE);
  return rest[0];
}
