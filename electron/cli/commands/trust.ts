import { UsageError } from '../output.ts';
import type { CliContext } from '../context.ts';
import { InstanceClient } from '../instance.ts';
import { offlineCore } from '../offline-core.ts';

export async function approveCommand(ctx: CliContext, argv: string[]): Promise<number> {
  const name = singleName(argv, 'approve');
  const client = InstanceClient.connect(ctx.home);
  const approval = client
    ? (await client.action(name, 'approve')).approval
    : (await offlineCore(ctx)).approve(name, 'cli');
  ctx.output.out(`Approved "${name}" to run exactly:`);
  for (const line of approval?.launch ?? []) ctx.output.out(`  ${line}`);
  ctx.output.out(client ? 'Starting it now.' : 'It will start with the next `switchboard serve`.');
  ctx.output.out('Any change to this config will ask again.');
  return 0;
}

export async function denyCommand(ctx: CliContext, argv: string[]): Promise<number> {
  const name = singleName(argv, 'deny');
  const client = InstanceClient.connect(ctx.home);
  if (client) await client.action(name, 'deny');
  else (await offlineCore(ctx)).deny(name);
  ctx.output.out(`Denied "${name}": it will not run until its config changes (or you approve it).`);
  return 0;
}

export function singleName(argv: string[], command: string): string {
  if (argv.length !== 1 || !argv[0] || argv[0].startsWith('-'))
    throw new UsageError(`usage: switchboard ${command} NAME`);
  return argv[0];
}
