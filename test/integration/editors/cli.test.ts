import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'jsonc-parser';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { exited, runCli, startServe } from '../../helpers/cli.ts';
import { NODE, waitFor } from '../../helpers/servers.ts';
import { tempHome, type TempHome } from '../../helpers/temp-home.ts';
import { EDITOR_IDS } from '../../../shared/editors.ts';
import { EDITORS } from '../../../electron/core/editors/registry.ts';
import { editorFile, install } from './helpers.ts';

let t: TempHome;
beforeEach(() => {
  t = tempHome();
});
afterEach(() => t.cleanup());

const ZED = '// mine\n{\n  "theme": "One Dark",\n}\n';

async function approved(...names: string[]): Promise<void> {
  t.writeServers({
    mcpServers: Object.fromEntries(names.map((n) => [n, { command: NODE, args: [`${n}.js`] }])),
  });
  for (const name of names) expect((await runCli(['approve', name, '--yes'], t.env)).code).toBe(0);
}

function zedServers(): string[] {
  return Object.keys(
    (parse(readFileSync(editorFile(t, 'zed'), 'utf8')) as { context_servers?: object }).context_servers ?? {},
  );
}

describe('switchboard sync / unsync / backups', () => {
  it('syncs detected editors only, tells Claude Desktop to restart, and unsync gives back the bytes', async () => {
    const zed = install(t, 'zed', ZED);
    install(t, 'claude-desktop');
    await approved('alpha', 'beta');
    t.writeServers({
      mcpServers: {
        alpha: { command: NODE, args: ['alpha.js'] },
        beta: { command: NODE, args: ['beta.js'], editors: ['zed'] },
      },
    });
    const result = await runCli(['sync'], t.env);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain(`Zed: added alpha, beta (${zed})`);
    expect(result.stdout).toMatch(/Claude Desktop: added alpha \(/); // beta is for Zed only
    expect(result.stdout).toMatch(
      /Claude Desktop reads its settings only when it starts: quit and reopen it .*It is (not )?running/,
    );
    expect(result.stdout).toMatch(/Cursor: skipped — not installed/);
    expect(existsSync(editorFile(t, 'cursor'))).toBe(false);
    // A file Switchboard creates holds a bridge token: readable by the user only.
    expect(statSync(editorFile(t, 'claude-desktop')).mode & 0o777).toBe(0o600);

    const unsync = await runCli(['unsync'], t.env);
    expect(unsync.code).toBe(0);
    expect(unsync.stdout).toMatch(/Sync is now off for zed, claude-desktop/);
    expect(readFileSync(zed, 'utf8')).toBe(ZED);
    expect(existsSync(editorFile(t, 'claude-desktop'))).toBe(false);
    // Off until turned on again: a plain sync leaves them alone, --editor turns one back on.
    expect((await runCli(['sync'], t.env)).stdout).toMatch(/Zed: skipped — sync is turned off/);
    expect((await runCli(['sync', '--editor', 'zed'], t.env)).code).toBe(0);
    expect(zedServers()).toEqual(['alpha', 'beta']);
  });

  it('--exclude keeps a server out of one editor; --include brings it back', async () => {
    install(t, 'zed', ZED);
    await approved('alpha', 'beta');
    expect((await runCli(['sync'], t.env)).code).toBe(0);
    expect((await runCli(['sync', '--editor', 'zed', '--exclude', 'beta'], t.env)).stdout).toMatch(
      /Zed: removed beta/,
    );
    expect(zedServers()).toEqual(['alpha']);
    expect((await runCli(['sync'], t.env)).stdout).toMatch(/Zed: up to date \(1 server;/);
    expect((await runCli(['sync', '--editor', 'zed', '--include', 'beta'], t.env)).stdout).toMatch(
      /Zed: added beta/,
    );
  });

  it('--exclude of a server that does not exist is a usage error, and nothing is stored (issue 24 item 12)', async () => {
    install(t, 'zed', ZED);
    await approved('alpha');
    const before = readFileSync(t.home.stateFile, 'utf8');
    const run = await runCli(['sync', '--editor', 'zed', '--exclude', 'nosuch'], t.env);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/no server named "nosuch" in .*servers\.json \(its servers: alpha\)/);
    expect(readFileSync(t.home.stateFile, 'utf8')).toBe(before);
    expect((await runCli(['sync', '--editor', 'zed', '--include', 'nosuch'], t.env)).code).toBe(2);
    // An exclusion left behind by a removed server can still be taken off.
    expect((await runCli(['sync', '--editor', 'zed', '--exclude', 'alpha'], t.env)).code).toBe(0);
    t.writeServers({ mcpServers: {} });
    expect((await runCli(['sync', '--editor', 'zed', '--include', 'alpha'], t.env)).code).toBe(0);
    expect(readFileSync(t.home.stateFile, 'utf8')).not.toContain('"alpha"');
  });

  it('with Switchboard running, sync goes through it (its own entries and tokens), exclusions included', async () => {
    install(t, 'zed', ZED);
    await approved('alpha', 'beta');
    const serve = await startServe(t.env);
    try {
      await waitFor(() => zedServers().length === 2, 10_000, 'serve synced both servers into Zed');
      const result = await runCli(['sync', '--editor', 'zed', '--exclude', 'alpha'], t.env);
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout).toContain('Switchboard is running: it synced the editors.');
      expect(result.stdout).toMatch(/^Zed: (added|removed) /m);
      expect(zedServers()).toEqual(['beta']);
    } finally {
      serve.child.kill('SIGTERM');
      await exited(serve.child);
    }
  });

  it('refuses to sync while servers.json is broken (it would drop every entry), and reports usage errors with exit 2', async () => {
    install(t, 'zed', ZED);
    await approved('alpha');
    expect((await runCli(['sync'], t.env)).code).toBe(0);
    const synced = readFileSync(editorFile(t, 'zed'), 'utf8');
    t.writeServers('{ "mcpServers": { "alpha": ');
    const broken = await runCli(['sync'], t.env);
    expect(broken.code).toBe(1);
    expect(broken.stderr).toMatch(/servers\.json has errors, so editors were left as they are/);
    expect(readFileSync(editorFile(t, 'zed'), 'utf8')).toBe(synced);
    expect((await runCli(['sync', '--editor', 'notepad'], t.env)).code).toBe(2);
    expect((await runCli(['sync', '--exclude', 'alpha'], t.env)).code).toBe(2);
    expect((await runCli(['backups', 'restore'], t.env)).code).toBe(2);
    expect((await runCli(['import', '--from', 'emacs'], t.env)).code).toBe(2);
  });

  it('backups list shows the original; restore puts it back (keeping what was there) and turns sync off', async () => {
    const zed = install(t, 'zed', ZED);
    await approved('alpha');
    expect((await runCli(['sync'], t.env)).code).toBe(0);
    const list = await runCli(['backups'], t.env);
    expect(list.code).toBe(0);
    const id = /^(\S+-zed)\s+zed\s+original/m.exec(list.stdout)?.[1];
    expect(id, list.stdout).toBeDefined();
    const synced = readFileSync(zed, 'utf8');
    const restore = await runCli(['backups', 'restore', id ?? ''], t.env);
    expect(restore.code, restore.stderr).toBe(0);
    expect(readFileSync(zed, 'utf8')).toBe(ZED);
    expect(restore.stdout).toMatch(/What was there before is kept as backup (\S+)/);
    expect(restore.stdout).toMatch(/Sync is now off for zed/);
    const saved = /kept as backup (\S+)\./.exec(restore.stdout)?.[1] ?? '';
    expect(readFileSync(join(t.home.backups, `${saved}.bak`), 'utf8')).toBe(synced);
    expect((await runCli(['backups', 'restore', 'nope'], t.env)).code).toBe(1);
  });

  it('editors lists every supported editor with its file and state; Codex (TOML) syncs, imports and unsyncs byte for byte', async () => {
    const CODEX =
      '# mine\nmodel = "o3"\n\n[mcp_servers.docs] # kept\ncommand = "npx"\nargs = ["-y", "docs-mcp"]\n';
    const codex = install(t, 'codex', CODEX);
    await approved('alpha');
    const before = await runCli(['editors', '--json'], t.env);
    expect(before.code, before.stderr).toBe(0);
    const listed = JSON.parse(before.stdout) as {
      id: string;
      file: string;
      state: string;
      tokenInFile: boolean;
    }[];
    expect(listed.map((l) => l.id)).toEqual([...EDITOR_IDS]);
    expect(listed.find((l) => l.id === 'codex')).toMatchObject({
      file: codex,
      state: 'would-change',
      tokenInFile: false,
    });
    expect(listed.find((l) => l.id === 'goose')?.state).toBe('not-installed');
    const table = await runCli(['editors'], t.env);
    for (const id of EDITOR_IDS) expect(table.stdout).toContain(EDITORS[id].label);

    expect((await runCli(['sync'], t.env)).code).toBe(0);
    const synced = readFileSync(codex, 'utf8');
    expect(synced).toMatch(/^# mine\nmodel = "o3"\n\n\[mcp_servers\.docs\] # kept\n/);
    expect(synced).toMatch(
      /\[mcp_servers\.alpha\]\nurl = "http:\/\/127\.0\.0\.1:\d+\/mcp\/alpha"\nhttp_headers_helper = /,
    );
    expect(synced).not.toContain(readFileSync(join(t.home.tokens, 'editors', 'codex'), 'utf8').trim());
    const after = JSON.parse((await runCli(['editors', '--json'], t.env)).stdout) as {
      id: string;
      state: string;
    }[];
    expect(after.find((l) => l.id === 'codex')?.state).toBe('in-sync');

    // The user's own Codex server is found for import (listed, not applied here).
    const scan = await runCli(['import', '--from', 'codex'], t.env);
    expect(scan.stdout).toMatch(/docs/);
    expect(scan.stdout).toMatch(/npx -y docs-mcp/);

    expect((await runCli(['unsync', '--editor', 'codex'], t.env)).code).toBe(0);
    expect(readFileSync(codex, 'utf8')).toBe(CODEX);
  });
});
