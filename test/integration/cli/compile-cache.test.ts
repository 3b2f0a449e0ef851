import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BIN, exited, startServe } from '../../helpers/cli.ts';
import { NODE } from '../../helpers/servers.ts';
import { tempHome, type TempHome } from '../../helpers/temp-home.ts';

// Node's TypeScript stripper, once loaded, stays for the life of the process (~15 MB of serve's memory,
// ~30 ms of every relay start). The CLI and the relay turn the home's compile cache on before any .ts
// file loads, so from the second run in a home on it is never loaded (docs/performance.md).
const RELAY = fileURLToPath(new URL('../../../electron/relay/main.mjs', import.meta.url));
const LAUNCH = fileURLToPath(new URL('../../../electron/launch.mjs', import.meta.url));

let t: TempHome;
let probeOut: string;
let env: NodeJS.ProcessEnv;

beforeEach(() => {
  t = tempHome();
  probeOut = join(t.dir, 'stripper-loaded');
  const probe = join(t.dir, 'probe.mjs');
  // Records at exit whether Node's internal TypeScript stripper (amaro) was loaded in this process.
  writeFileSync(
    probe,
    `import { writeFileSync } from 'node:fs';\n` +
      `process.on('exit', () => writeFileSync(${JSON.stringify(probeOut)}, ` +
      `String(process.moduleLoadList.some((m) => m.includes('internal/deps/amaro')))));\n`,
  );
  env = { ...t.env, NODE_OPTIONS: `--import ${probe}` };
  delete env.NODE_COMPILE_CACHE; // the home's own cache, as a user has it
});

afterEach(() => t.cleanup());

function strippedIn(args: string[]): boolean {
  const r = spawnSync(NODE, args, { env, encoding: 'utf8', timeout: 30_000 });
  if (r.error) throw r.error;
  return readFileSync(probeOut, 'utf8') === 'true';
}

describe('the compile cache is on before any TypeScript loads', () => {
  it('switchboard status: the first run strips types, later runs never load the stripper', () => {
    expect(strippedIn([BIN, 'status'])).toBe(true);
    expect(strippedIn([BIN, 'status'])).toBe(false);
    expect(strippedIn([BIN, 'status', '--json'])).toBe(false);
  });

  it('switchboard serve: not even its first start in a new home loads the stripper', async () => {
    // A short-lived child fills the cache first (cli/warm-compile-cache.mjs) with everything
    // serve loads, also what it loads once it runs (the UI build check).
    expect(existsSync(t.home.cache)).toBe(false);
    for (let start = 1; start <= 2; start++) {
      const serve = await startServe(env);
      serve.child.kill('SIGTERM');
      await exited(serve.child);
      expect(readFileSync(probeOut, 'utf8'), `start ${start}`).toBe('false');
    }
    expect(existsSync(join(t.home.cache, 'node-compile', 'switchboard-warm.json'))).toBe(true);
  });

  it('npm start (headless mode): the same from its second start on', () => {
    // No Electron binary to be found (an empty folder), no UI build; an unknown option makes `serve`
    // stop at once after loading everything it needs.
    env.ELECTRON_OVERRIDE_DIST_PATH = t.dir;
    env.ELECTRON_MIRROR = 'http://127.0.0.1:9/';
    env.SWITCHBOARD_SKIP_UI_BUILD = '1';
    expect(strippedIn([LAUNCH, '--no-such-option'])).toBe(true);
    expect(strippedIn([LAUNCH, '--no-such-option'])).toBe(false);
  });

  it('the stdio relay, as Claude Desktop starts it: the same from its second start on', () => {
    const relay = [RELAY, '--server', 'anything', '--editor', 'claude-desktop'];
    expect(strippedIn(relay)).toBe(true);
    expect(strippedIn(relay)).toBe(false);
  });
});
