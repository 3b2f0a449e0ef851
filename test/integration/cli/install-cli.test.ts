import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { StatusReportSchema } from '../../../shared/status.ts';
import { ApiRoutes } from '../../../shared/api.ts';
import { STATUS_ROUTE } from '../../../electron/cli/commands/status.ts';
import { BIN, exited, runCli, startServe } from '../../helpers/cli.ts';
import { fixtureServer, NODE } from '../../helpers/servers.ts';
import { tempHome, type TempHome } from '../../helpers/temp-home.ts';

// Issue 24 item 17: `switchboard install-cli` puts a `switchboard` on PATH that runs this checkout's CLI
// with its own Node (no npm: no 1.4 s, no EBADENGINE warnings), and `status` from it answers from a
// running serve over its local socket. The figure (≤ 150 ms) is bench/cli-status.ts's.

const run = promisify(execFile);
let t: TempHome;
beforeEach(() => {
  t = tempHome();
});
afterEach(() => t.cleanup());

describe.runIf(process.platform !== 'win32')('switchboard install-cli', () => {
  it('writes ~/.local/bin/switchboard, says how to put it on PATH, and the command works from there', async () => {
    const env = { ...t.env, PATH: '/usr/bin:/bin' };
    const installed = await runCli(['install-cli'], env);
    expect(installed.code, installed.stderr).toBe(0);
    const launcher = join(t.env.HOME ?? '', '.local', 'bin', 'switchboard');
    expect(installed.stdout).toContain(`Installed ${launcher}`);
    expect(installed.stdout).toContain(`export PATH="${join(t.env.HOME ?? '', '.local', 'bin')}:$PATH"`);
    // On PATH, with nothing of the project's Node on it: the launcher brings its own.
    const onPath = { ...env, PATH: `${join(t.env.HOME ?? '', '.local', 'bin')}:/usr/bin:/bin` };
    const version = await run('switchboard', ['--version'], { env: onPath });
    expect(version.stdout).toMatch(/^switchboard \d+\.\d+\.\d+\n$/);
    expect(version.stderr).toBe('');
    expect((await runCli(['install-cli'], onPath)).stdout).toContain(
      'is already this Switchboard’s command'.replace('’', "'"),
    );

    t.writeServers({ mcpServers: { a: fixtureServer('mini-server.mjs') } });
    const offline = await run('switchboard', ['status'], { env: onPath });
    expect(offline.stdout).toContain('Switchboard is not running');

    const serve = await startServe(t.env);
    try {
      const quick = StatusReportSchema.parse(
        JSON.parse((await run('switchboard', ['status', '--json'], { env: onPath })).stdout),
      );
      expect(quick.live).toBe(true);
      expect(quick.servers.map((s) => s.name)).toEqual(['a']);
      const text = (await run('switchboard', ['status'], { env: onPath })).stdout;
      expect(text).toMatch(/^Switchboard is running\.\n/);
      expect(text).toMatch(/\na\s+pending-approval/);
      // The quick way loads none of what costs a command its start-up: zod, node:http, the core.
      const trace = join(t.dir, 'modules.txt');
      await run(
        NODE,
        ['--import', join(import.meta.dirname, '../../fixtures/module-trace.mjs'), BIN, 'status'],
        {
          env: { ...onPath, MODULE_TRACE_FILE: trace },
        },
      );
      const loaded = readFileSync(trace, 'utf8').split('\n');
      expect(loaded).toContainEqual(expect.stringMatching(/cli\/quick-instance\.ts$/));
      expect(
        loaded.filter((url) => /\/zod\/|^node:http$|\/core\/core\.ts$|\/cli\/instance\.ts$/.test(url)),
      ).toEqual([]);
    } finally {
      serve.child.kill('SIGTERM');
      await exited(serve.child);
    }

    const removed = await runCli(['install-cli', '--remove'], env);
    expect(removed.stdout).toContain(`Removed ${launcher}.`);
    expect(existsSync(launcher)).toBe(false);
  });

  it('the quick way asks the route the control API serves status at', () => {
    expect(STATUS_ROUTE).toBe(ApiRoutes.status);
  });

  it('leaves a `switchboard` that is not its own alone', async () => {
    const dir = join(t.dir, 'bin');
    mkdirSync(dir);
    writeFileSync(join(dir, 'switchboard'), '#!/bin/sh\necho mine\n');
    const refused = await runCli(['install-cli', '--dir', dir], t.env);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('is not a Switchboard launcher: it was left alone');
    expect(readFileSync(join(dir, 'switchboard'), 'utf8')).toContain('echo mine');
  });
});
