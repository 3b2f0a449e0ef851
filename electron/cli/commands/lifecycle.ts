import { UserError } from '../../core/errors.ts';
import type { CliContext } from '../context.ts';
import { InstanceClient } from '../instance.ts';
import { singleName } from './trust.ts';

/** start / stop / restart: only meaningful against a running instance. */
export async function lifecycleCommand(
  ctx: CliContext,
  action: 'start' | 'stop' | 'restart',
  argv: string[],
): Promise<number> {
  const name = singleName(argv, action);
  const client = InstanceClient.connect(ctx.home);
  if (!client)
    throw new UserError('Switchboard is not running', { hint: 'start it with: switchboard serve' });
  await client.action(name, action);
  ctx.output.out(`${action}: ${name}`);
  return 0;
}
