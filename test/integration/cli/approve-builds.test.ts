import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { BIN, exited } from '../../helpers/cli.ts';
import { fixtureServer, HANG_MS, NODE } from '../../helpers/servers.ts';
import { tempHome, type TempHome } from '../../helpers/temp-home.ts';

// Issue 37: approving with serve stopped builds config, trust and the store's resolution, not the
// supervisor, the update checks or sign-in (nor the whole composition root that holds them).
const core = fileURLToPath(new URL('../../../electron/core/', import.meta.url));

let t: TempHome;

beforeEach(() => {
  t = tempHome();
});

afterEach(() => t.cleanup());

it(
  '`approve` without serve approves from the files and never loads the supervisor, update checks or sign-in',
  async () => {
    t.writeServers({ mcpServers: { echo: fixtureServer('env-echo-server.mjs') } });
    const loadedFile = join(t.dir, 'loaded.json');
    const probe = join(t.dir, 'probe.mjs');
    // Records every module this process resolves, at exit.
    writeFileSync(
      probe,
      `import { registerHooks } from 'node:module';\n` +
        `import { writeFileSync } from 'node:fs';\n` +
        `const seen = [];\n` +
        `registerHooks({ resolve(specifier, context, next) { const r = next(specifier, context); seen.push(r.url); return r; } });\n` +
        `process.on('exit', () => writeFileSync(${JSON.stringify(loadedFile)}, JSON.stringify(seen)));\n`,
    );
    const child = spawn(NODE, ['--import', probe, BIN, 'approve', 'echo', '--yes'], {
      env: t.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const code = await exited(child);
    expect(code, stderr).toBe(0);
    expect(JSON.parse(readFileSync(t.home.stateFile, 'utf8'))).toMatchObject({
      approvals: { echo: { fingerprint: expect.any(String) } },
    });
    const loaded = (JSON.parse(readFileSync(loadedFile, 'utf8')) as string[])
      .filter((url) => url.startsWith('file:'))
      .map((url) => fileURLToPath(url))
      .filter((path) => path.startsWith(core))
      .map((path) => path.slice(core.length));
    expect(loaded).toContain('trust/app-state.ts'); // the probe sees the core's modules
    expect(
      loaded.filter(
        (path) =>
          path === 'core.ts' ||
          path.startsWith('supervisor/supervisor') ||
          path === 'store/update-checks.ts' ||
          path.startsWith('oauth/'),
      ),
    ).toEqual([]);
  },
  HANG_MS,
);
