import { ApiErrorSchema } from '../../../shared/api.ts';
import { LoginLinkSchema, UiRoutes } from '../../../shared/ui-api.ts';
import { CONTROL_TOKEN, readToken } from '../../core/tokens/token-file.ts';
import { UserError } from '../../core/errors.ts';
import type { CliContext } from '../context.ts';
import { findInstance } from '../../core/instance-file.ts';
import { UsageError } from '../output.ts';
import { usageOf } from '../help.ts';

/** `switchboard ui`: a fresh one-time sign-in link for the browser UI of the running instance. */
export async function uiCommand(ctx: CliContext, argv: string[]): Promise<number> {
  if (argv.length) throw new UsageError(usageOf('ui'));
  const info = findInstance(ctx.home);
  if (!info)
    throw new UserError('Switchboard is not running', {
      hint: 'start it with: switchboard serve (it prints the UI link)',
    });
  const token = readToken(ctx.home.tokens, CONTROL_TOKEN);
  if (!token)
    throw new UserError(`Switchboard is running (pid ${info.pid}) but its control token is missing`);
  let res: Response;
  try {
    res = await fetch(`http://127.0.0.1:${info.port}${UiRoutes.loginLink}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}` },
    });
  } catch (err) {
    throw new UserError(`cannot reach the running Switchboard on port ${info.port}`, { cause: err });
  }
  const body: unknown = await res.json().catch(() => ({}));
  if (!res.ok) {
    const parsed = ApiErrorSchema.safeParse(body);
    throw new UserError(parsed.success ? parsed.data.error : `Switchboard answered HTTP ${res.status}`);
  }
  const link = LoginLinkSchema.parse(body);
  ctx.output.out(`Open the UI: ${link.url}`);
  ctx.output.out('The link signs one browser in once and expires in 10 minutes.');
  return 0;
}
