// Approves every server of a throwaway home and makes an editor token, with the code of another
// checkout of Switchboard (bench/bridge.ts --base DIR: serve from an older commit, side by side).
//
//   SWITCHBOARD_HOME=… node bench/child/approve-home.ts REPO_DIR TOKEN_NAME   (prints the token)
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const [repo, tokenName] = process.argv.slice(2);
if (!repo || !tokenName) {
  console.error('usage: node bench/child/approve-home.ts REPO_DIR TOKEN_NAME');
  process.exit(2);
}
const from = async (path: string): Promise<Record<string, unknown>> =>
  (await import(pathToFileURL(join(repo, path)).href)) as Record<string, unknown>;

interface Approving {
  load(): void;
  configError(): string | undefined;
  entries(): Map<string, unknown>;
  approve(name: string, ...rest: unknown[]): unknown;
  review?: (name: string) => { fingerprint: string };
}
/** Older commits' Core did it all; newer ones hand it to its services (servers, approvals). */
type CoreLike = Partial<Approving> & {
  servers?: Pick<Approving, 'load' | 'configError' | 'entries'>;
  approvals?: Pick<Approving, 'approve'> & { review(name: string): { fingerprint: string } };
};
type Ctor<T> = new (...args: unknown[]) => T;

const { resolveHome } = (await from('electron/core/home.ts')) as {
  resolveHome: (env: unknown) => { tokens: string };
};
const { Core } = (await from('electron/core/core.ts')) as { Core: Ctor<CoreLike> };
const { MemoryKeychain } = (await from('electron/core/secrets/keychain.ts')) as {
  MemoryKeychain: Ctor<object>;
};
// Tokens moved from bridge/ to a home of their own (issue 26); older commits have them in bridge/.
const tokensModule = existsSync(join(repo, 'electron/core/tokens/token-store.ts'))
  ? 'electron/core/tokens/token-store.ts'
  : 'electron/core/bridge/tokens.ts';
const { TokenStore } = (await from(tokensModule)) as {
  TokenStore: Ctor<{ ensure(name: string): string }>;
};
const home = resolveHome(process.env);
const made = new Core({ home, keychain: new MemoryKeychain(), env: process.env });
const core = (
  made.servers && made.approvals
    ? {
        load: () => made.servers?.load(),
        configError: () => made.servers?.configError(),
        entries: () => made.servers?.entries() ?? new Map(),
        approve: (name: string, ...rest: unknown[]) => made.approvals?.approve(name, ...rest),
        review: (name: string) => made.approvals?.review(name) ?? { fingerprint: '' },
      }
    : made
) as Approving;
core.load();
const problem = core.configError();
if (problem) throw new Error(`servers.json is invalid for ${repo}: ${problem}`);
for (const name of core.entries().keys()) {
  // Older commits approve by name; newer ones take the fingerprint that was shown.
  if (core.review) core.approve(name, core.review(name).fingerprint, 'cli');
  else core.approve(name, 'cli');
}
process.stdout.write(new TokenStore(home.tokens).ensure(tokenName));
