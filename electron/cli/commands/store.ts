import { parseArgs } from 'node:util';
import {
  formatBytes,
  type OutdatedEntry,
  type StorePruneResult,
  type StoreUsage,
} from '../../../shared/store.ts';
import type { CliContext } from '../context.ts';
import { InstanceClient } from '../instance.ts';
import { offlineStore } from '../offline-core.ts';
import { UsageError } from '../output.ts';
import { usageOf } from '../help.ts';

/**
 * `outdated [--json] [NAME…]`: approved package-run servers whose registry has a newer release of
 * their package or of a dependency. Nothing updates by itself: `update NAME` shows and approves it.
 */
export async function outdatedCommand(
  ctx: Pick<CliContext, 'home' | 'env' | 'output' | 'commandPath' | 'tokenFiles'>,
  argv: string[],
): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    options: { json: { type: 'boolean' } },
    allowPositionals: true,
    strict: true,
  });
  const client = InstanceClient.connect(ctx.home);
  // What it is doing, on a terminal only: stderr, one line rewritten in place, gone before the answer.
  const tty = process.stderr.isTTY === true;
  const say = (text: string) => {
    if (tty) process.stderr.write(`\r\x1b[2K${text}`);
  };
  say('Checking approved packages at their registries…');
  let servers: OutdatedEntry[];
  try {
    servers = client
      ? (await client.outdated(positionals)).servers
      : await (
          await offlineStore(ctx)
        ).store.outdated(positionals.length ? positionals : undefined, (done, total, server) =>
          say(`Checking approved packages at their registries: ${done} of ${total} done (${server})`),
        );
  } finally {
    say('');
  }
  if (values.json) {
    ctx.output.out(JSON.stringify({ servers }, null, 2));
    return servers.some((s) => s.error) ? 1 : 0;
  }
  if (servers.length === 0) {
    ctx.output.out('Every stored package is the newest its servers.json entry allows.');
    return 0;
  }
  for (const s of servers) {
    if (s.error) {
      ctx.output.out(`${s.server}: ${s.package} ${s.current} could not be checked: ${s.error}`);
      continue;
    }
    const latest = s.latest && s.latest !== s.wanted ? ` (newest release: ${s.latest})` : '';
    ctx.output.out(`${s.server}: ${s.package} ${s.current} → ${s.wanted ?? '?'}${latest}`);
    for (const change of s.changes) ctx.output.out(`  ${change}`);
    if (s.wanted === s.current && s.latest)
      ctx.output.out(`  servers.json asks for ${s.current}: change the version there to move on`);
  }
  ctx.output.out('\nReview and approve one with: switchboard update NAME');
  return servers.some((s) => s.error) ? 1 : 0;
}

const STORE_USAGE = usageOf('store');

/** `store [--json]`: the store's disk use per install; `store prune`: removes what no approval uses. */
export async function storeCommand(
  ctx: Pick<CliContext, 'home' | 'env' | 'output' | 'commandPath' | 'tokenFiles'>,
  argv: string[],
): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    options: { json: { type: 'boolean' } },
    allowPositionals: true,
    strict: true,
  });
  const [action] = positionals;
  if (positionals.length > 1 || (action !== undefined && action !== 'prune'))
    throw new UsageError(STORE_USAGE);
  const client = InstanceClient.connect(ctx.home);
  if (action === 'prune') {
    const result: StorePruneResult = client
      ? await client.pruneStore()
      : (await offlineStore(ctx)).store.pruneStore();
    if (values.json) ctx.output.out(JSON.stringify(result, null, 2));
    else if (result.removed.length === 0 && result.freedBytes === 0) ctx.output.out('Nothing to remove.');
    else
      ctx.output.out(
        `Removed ${result.removed.length} install(s) no server uses, ${formatBytes(result.freedBytes)} freed.` +
          result.removed.map((id) => `\n  ${id}`).join(''),
      );
    return 0;
  }
  const usage: StoreUsage = client ? await client.storeUsage() : (await offlineStore(ctx)).store.storeUsage();
  if (values.json) {
    ctx.output.out(JSON.stringify(usage, null, 2));
    return 0;
  }
  ctx.output.out(`${usage.folder}: ${formatBytes(usage.bytes)}`);
  for (const install of usage.installs) {
    const users = install.servers.length ? install.servers.join(', ') : 'unused (store prune removes it)';
    ctx.output.out(`  ${install.id}  ${formatBytes(install.bytes)}  ${users}`);
  }
  return 0;
}
