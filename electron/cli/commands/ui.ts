import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { BROWSER_SESSIONS_FILE } from '../../core/bridge/ui-auth.ts';
import { UserError } from '../../core/errors.ts';
import type { CliContext } from '../context.ts';
import { InstanceClient } from '../instance.ts';
import { UsageError } from '../output.ts';
import { usageOf } from '../help.ts';

/**
 * `switchboard ui`: a fresh one-time sign-in link for the browser UI of the running instance.
 * `switchboard ui --sign-out`: signs every browser out (each needs a new link).
 */
export async function uiCommand(ctx: Pick<CliContext, 'home' | 'output'>, argv: string[]): Promise<number> {
  const signOut = argv.length === 1 && argv[0] === '--sign-out';
  if (argv.length && !signOut) throw new UsageError(usageOf('ui'));
  const client = InstanceClient.connect(ctx.home);
  if (signOut) {
    if (client) {
      const count = await client.signOutBrowsers();
      ctx.output.out(`Signed out ${count} browser${count === 1 ? '' : 's'}.`);
    } else {
      // Not running: the next start finds no signed-in browser.
      rmSync(join(ctx.home.tokens, BROWSER_SESSIONS_FILE), { force: true });
      ctx.output.out('Signed out every browser.');
    }
    return 0;
  }
  if (!client)
    throw new UserError('Switchboard is not running', {
      hint: 'start it with: switchboard serve (it prints the UI link)',
    });
  const link = await client.loginLink();
  ctx.output.out(`Open the UI: ${link.url}`);
  ctx.output.out(
    'The link signs one browser in once and expires in 10 minutes; that browser then stays signed in for 30 days.',
  );
  return 0;
}
