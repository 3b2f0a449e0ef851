// A throwaway Switchboard home for the bridge benches: the given servers approved (as `switchboard
// approve` does offline) and an editor token; with `repo`, approved by that checkout's code (its
// approvals may be of another shape: bench/child/approve-home.ts).
import { execFileSync } from 'node:child_process';
import { Core } from '../electron/core/core.ts';
import { MemoryKeychain } from '../electron/core/secrets/keychain.ts';
import { TokenStore } from '../electron/core/tokens/token-store.ts';
import { tempHome, type TempHome } from '../test/helpers/temp-home.ts';
import { NODE, onCleanup } from './lib.ts';

export function approvedHome(
  servers: Record<string, { command: string; args: string[] } | { url: string }>,
  repo?: string,
): { t: TempHome; token: string } {
  const t = tempHome();
  onCleanup(() => t.cleanup());
  delete t.env.NODE_OPTIONS;
  t.writeServers({ mcpServers: servers });
  if (repo !== undefined) {
    const child = new URL('./child/approve-home.ts', import.meta.url).pathname;
    const token = execFileSync(NODE, [child, repo, 'bench'], { env: t.env, encoding: 'utf8' });
    return { t, token };
  }
  const core = new Core({ home: t.home, keychain: new MemoryKeychain(), env: t.env });
  core.servers.load();
  const problem = core.servers.configError();
  if (problem) throw new Error(`servers.json written by the bench is invalid: ${problem}`);
  for (const name of core.servers.entries().keys())
    core.approvals.approve(name, core.approvals.review(name).fingerprint, 'cli');
  const token = new TokenStore(t.home.tokens).ensure('bench');
  return { t, token };
}
