import { UserError } from '../../core/errors.ts';
import type { CliContext } from '../context.ts';
import { InstanceClient } from '../instance.ts';
import { offlineServers } from '../offline-core.ts';
import { singleName } from './trust.ts';

/**
 * start / stop / restart. Against a running instance they act at once. Without one, a stop or start
 * is the person's intent for the next start of Switchboard (kept in state.json, as a stop made while
 * it runs is); a restart needs it running.
 */
export async function lifecycleCommand(
  ctx: Pick<CliContext, 'home' | 'env' | 'output' | 'commandPath'>,
  action: 'start' | 'stop' | 'restart',
  argv: string[],
): Promise<number> {
  const name = singleName(argv, action);
  const client = InstanceClient.connect(ctx.home);
  if (client) {
    await client.action(name, action);
    ctx.output.out(`${action}: ${name}`);
    return 0;
  }
  if (action === 'restart')
    throw new UserError('Switchboard is not running', { hint: 'start it with: switchboard serve' });
  const core = await offlineServers(ctx);
  if (!core.servers.entries().has(name))
    throw new UserError(`no server named "${name}" in ${ctx.home.serversFile}`);
  core.state.setStopped(name, action === 'stop' ? Date.now() : undefined);
  ctx.output.out(
    action === 'stop'
      ? `Switchboard is not running; "${name}" stays stopped when it starts, until you start it (switchboard start ${name}).`
      : `Switchboard is not running; "${name}" starts with it as usual.`,
  );
  return 0;
}
