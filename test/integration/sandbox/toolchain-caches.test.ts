import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Core } from '../../../electron/core/core.ts';
import { MemoryKeychain } from '../../../electron/core/secrets/keychain.ts';
import { approveUntilRunning, hostileAttempts, runInSandbox } from '../../helpers/real-sandbox.ts';
import { fixtureServer } from '../../helpers/servers.ts';
import { sandboxUnavailable } from '../../helpers/sandbox.ts';
import { tempHome, type TempHome } from '../../helpers/temp-home.ts';

// Issue 32 item 9 (third bullet): toolchains are readable so that what they installed runs, but the
// package managers' caches and logs are not: npm's cache (~/.npm/_cacache: private packages' tarballs)
// and debug logs (~/.npm/_logs: command lines), uv's and pnpm's caches. The hostile fixture, in real
// bubblewrap under the default policy, reads planted files of each.
const skip = sandboxUnavailable() !== undefined;

let t: TempHome | undefined;
let core: Core | undefined;

afterEach(async () => {
  await core?.lifecycle.shutdown();
  core = undefined;
  t?.cleanup();
  t = undefined;
});

function plant(path: string, text: string): string {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
  return path;
}

describe.skipIf(skip)('toolchains in the home, seen from the default sandbox', () => {
  it('reads what runs (npx installs, nvm’s node) and not the caches and logs', async () => {
    t = tempHome();
    const home = t.env.HOME ?? '';
    const hidden = [
      plant(join(home, '.npm/_cacache/index-v5/1a/2b/planted'), 'private-pkg tarball index'),
      plant(
        join(home, '.npm/_logs/2026-11-28T10_00_00_000Z-debug-0.log'),
        '0 verbose cli npm publish --otp=123456',
      ),
      plant(join(home, '.cache/uv/wheels-v5/planted.whl'), 'a private wheel'),
      plant(join(home, '.cache/pnpm/metadata/planted.json'), 'private metadata'),
    ];
    const readable = [
      plant(join(home, '.npm/_npx/0123abcd/node_modules/some-server/package.json'), '{"name":"some-server"}'),
      plant(join(home, '.nvm/versions/node/v24.0.0/lib/node_modules/npm/package.json'), '{"name":"npm"}'),
    ];
    t.writeServers({
      mcpServers: {
        hostile: {
          ...fixtureServer('hostile-server.mjs'),
          env: { TARGET_FILES: [...hidden, ...readable].join(':') },
        },
      },
    });
    core = new Core({ home: t.home, keychain: new MemoryKeychain(), env: t.env });
    await core.lifecycle.start();
    await approveUntilRunning(core, 'hostile');
    const tried = await hostileAttempts(core);
    for (const path of hidden) expect(tried[`file ${path}`], path).toMatchObject({ ok: false });
    for (const path of readable) expect(tried[`file ${path}`], path).toMatchObject({ ok: true });
  });
});

const npx = spawnSync('sh', ['-c', 'command -v npx'], { encoding: 'utf8' }).stdout.trim();

describe.skipIf(skip || !npx)('real npx in the default sandbox, without the store', () => {
  it('installs and runs a package with no network, from its own cache, never the home’s ~/.npm', async () => {
    t = tempHome();
    const home = t.env.HOME ?? '';
    const pkg = join(t.dir, 'pkg');
    plant(join(pkg, 'package.json'), '{"name":"sb-hello","version":"1.0.0","bin":{"sb-hello":"index.js"}}');
    plant(join(pkg, 'index.js'), '#!/usr/bin/env node\nconsole.log("hello from npx");\n');
    chmodSync(join(pkg, 'index.js'), 0o755);
    const packed = spawnSync('npm', ['pack', '--pack-destination', t.dir], { cwd: pkg, encoding: 'utf8' });
    expect(packed.status, packed.stderr).toBe(0);
    const run = await runInSandbox(t, {
      command: npx,
      args: ['-y', `--package=${join(t.dir, 'sb-hello-1.0.0.tgz')}`, 'sb-hello'],
      setting: { network: 'none' },
      env: (policy) => ({ PATH: process.env.PATH ?? '', HOME: home, ...policy.env }),
    });
    expect(run.out, run.err).toBe('hello from npx\n');
    expect(run.status).toBe(0);
  });
});
