import { chmodSync, copyFileSync, linkSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { parse } from 'jsonc-parser';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SyncCliResultSchema } from '../../../shared/editor-report.ts';
import { StatusReportSchema } from '../../../shared/status.ts';
import { EditorSyncService } from '../../../electron/core/editors/service.ts';
import { TokenStore } from '../../../electron/core/tokens/token-store.ts';
import { Core } from '../../../electron/core/core.ts';
import { MemoryKeychain } from '../../../electron/core/secrets/keychain.ts';
import { BIN, exited, runCli, startServe } from '../../helpers/cli.ts';
import { NODE } from '../../helpers/servers.ts';
import { tempHome, type TempHome } from '../../helpers/temp-home.ts';
import { editorFile, install } from './helpers.ts';
import { spawn } from 'node:child_process';

// Issue 24 item 10: counts and chips name only the servers an editor really gets, and a sync planned
// from `node bin.mjs` in a shell agrees with what a serve started by npx writes.

let t: TempHome;
beforeEach(() => {
  t = tempHome();
});
afterEach(() => t.cleanup());

describe('servers an editor gets', () => {
  it('a name taken by your own entry is not counted, listed or shown as a chip', async () => {
    // Zed already has the user's own "beta" and "gamma": Switchboard's of those names are not added.
    install(
      t,
      'zed',
      '{\n  "context_servers": {\n    "beta": { "command": "mine" },\n    "gamma": { "command": "mine" }\n  }\n}\n',
    );
    t.writeServers({
      mcpServers: Object.fromEntries(
        ['alpha', 'beta', 'gamma'].map((n) => [n, { command: NODE, args: [n] }]),
      ),
    });
    for (const name of ['alpha', 'beta', 'gamma'])
      expect((await runCli(['approve', name, '--yes'], t.env)).code).toBe(0);
    const first = SyncCliResultSchema.parse(JSON.parse((await runCli(['sync', '--json'], t.env)).stdout));
    const zed = first.editors.find((e) => e.editor === 'zed');
    expect(zed?.added).toEqual(['alpha']);
    expect(zed?.clashes).toEqual(['beta', 'gamma']);
    expect(zed?.servers).toEqual(['alpha']);
    const again = await runCli(['sync'], t.env);
    expect(again.stdout).toMatch(/Zed: up to date \(1 server;/);

    // The Editors view: "in sync" with one chip, not three.
    const core = new Core({ home: t.home, keychain: new MemoryKeychain(), env: t.env });
    core.servers.load();
    const service = new EditorSyncService({
      core,
      tokens: new TokenStore(t.home.tokens),
      home: t.home,
      env: t.env,
      port: 43117,
      apps: null,
      log: () => {},
    });
    const view = (await service.views()).find((v) => v.id === 'zed');
    expect(view?.state).toBe('in-sync');
    expect(view?.servers).toEqual(['alpha']);
    expect(view?.problem).toMatch(/"beta", "gamma" kept/);
  });
});

describe('`node bin.mjs` in a shell and a serve started by npx agree', () => {
  it('on what a command resolves to and on the relay command Claude Desktop gets', async () => {
    // The person's shell: `tool` is their own. npx puts the project's node_modules/.bin first, where a
    // `tool` of the project's own dependencies sits (as `node` is the project's Node 24 there).
    const userBin = join(t.dir, 'user-bin');
    const projectBin = join(t.dir, 'project', 'node_modules', '.bin');
    for (const dir of [userBin, projectBin]) {
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, 'tool'), '#!/bin/sh\nexit 0\n');
      chmodSync(join(dir, 'tool'), 0o755);
    }
    const base = Object.fromEntries(Object.entries(t.env).filter(([k]) => !/^npm_/i.test(k)));
    const systemPath = (process.env.PATH ?? '')
      .split(delimiter)
      .filter((p) => !/node_modules[\\/]\.bin$/.test(p))
      .join(delimiter);
    const shell = { ...base, PATH: [userBin, systemPath].join(delimiter) };
    const npx = {
      ...shell,
      PATH: [projectBin, projectBin, shell.PATH].join(delimiter),
      npm_command: 'exec',
      npm_lifecycle_event: 'npx',
    };
    install(t, 'zed');
    install(t, 'claude-desktop');
    t.writeServers({ mcpServers: { alpha: { command: 'tool' } } });
    expect((await runCli(['approve', 'alpha', '--yes'], shell)).code).toBe(0);

    // `node bin.mjs` here runs on another Node binary than npx's (nvm's, the system's): a link to it.
    const otherNode = join(t.dir, 'other-node');
    try {
      linkSync(NODE, otherNode);
    } catch {
      copyFileSync(NODE, otherNode);
      chmodSync(otherNode, 0o755);
    }
    const fromShell = (args: string[]) =>
      new Promise<string>((resolve) => {
        const child = spawn(otherNode, ['--max-semi-space-size=2', BIN, ...args], { env: shell });
        let out = '';
        child.stdout.on('data', (d: Buffer) => (out += d.toString()));
        child.on('close', () => resolve(out));
      });

    const planned = SyncCliResultSchema.parse(JSON.parse(await fromShell(['sync', '--dry-run', '--json'])));
    expect(planned.editors.find((e) => e.editor === 'zed')?.servers).toEqual(['alpha']);

    const serve = await startServe(npx);
    try {
      const status = StatusReportSchema.parse(JSON.parse((await runCli(['status', '--json'], npx)).stdout));
      expect(status.servers.find((s) => s.name === 'alpha')?.state).not.toBe('pending-approval');
      const zed = parse(readFileSync(editorFile(t, 'zed'), 'utf8')) as { context_servers?: object };
      expect(Object.keys(zed.context_servers ?? {})).toEqual(['alpha']);
      // What the serve wrote is what the shell's dry run sees as up to date: nothing left to change.
      const after = SyncCliResultSchema.parse(JSON.parse(await fromShell(['sync', '--dry-run', '--json'])));
      for (const editor of ['zed', 'claude-desktop'])
        expect(after.editors.find((e) => e.editor === editor)?.outcome, editor).toBe('up-to-date');
    } finally {
      serve.child.kill('SIGTERM');
      await exited(serve.child);
    }
  });
});
