import { readFileSync, writeFileSync } from 'node:fs';
import { parse } from 'jsonc-parser';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MemoryKeychain } from '../../../electron/core/secrets/keychain.ts';
import { startHeadless } from '../../../electron/headless/serve.ts';
import { runCli } from '../../helpers/cli.ts';
import { NODE, waitFor } from '../../helpers/servers.ts';
import { tempHome, type TempHome } from '../../helpers/temp-home.ts';
import { install } from './helpers.ts';

/**
 * Whose an entry in an editor's file is: Switchboard's only if Switchboard wrote it (its name is in
 * state.json's record), whatever the entry points at. A port changed by hand in Switchboard's entry
 * is drift (put back); an entry the user wrote that points at the bridge is theirs (never touched).
 */
let t: TempHome;
beforeEach(() => {
  t = tempHome();
});
afterEach(() => t.cleanup());

const ZED =
  '// mine\n{\n  "theme": "One Dark",\n  "context_servers": {\n    "local": { "command": "my-server" },\n  },\n}\n';

async function approved(...names: string[]): Promise<void> {
  t.writeServers({
    mcpServers: Object.fromEntries(names.map((n) => [n, { command: NODE, args: [`${n}.js`] }])),
  });
  for (const name of names) expect((await runCli(['approve', name, '--yes'], t.env)).code).toBe(0);
}

function zedEntries(file: string): Record<string, { url?: string; headers?: Record<string, string> }> {
  const settings = parse(readFileSync(file, 'utf8')) as { context_servers?: object };
  return (settings.context_servers ?? {}) as Record<string, { url?: string }>;
}

function state(): { editors: Record<string, { entries?: { names: string[] } }> } {
  return JSON.parse(readFileSync(t.home.stateFile, 'utf8')) as ReturnType<typeof state>;
}

describe('ownership of editor entries', () => {
  it('a port changed by hand in Switchboard’s entry is drift: sync puts it back, unsync still takes it out', async () => {
    const zed = install(t, 'zed', ZED);
    await approved('alpha');
    expect((await runCli(['sync', '--editor', 'zed'], t.env)).code).toBe(0);
    expect(zedEntries(zed).alpha?.url).toBe('http://127.0.0.1:43117/mcp/alpha');

    writeFileSync(
      zed,
      readFileSync(zed, 'utf8').replace('127.0.0.1:43117/mcp/alpha', '127.0.0.1:9999/mcp/alpha'),
    );
    const dry = await runCli(['sync', '--editor', 'zed', '--dry-run', '--json'], t.env);
    const [report] = (JSON.parse(dry.stdout) as { editors: { updated: string[]; clashes: string[] }[] })
      .editors;
    expect(report?.updated).toEqual(['alpha']);
    expect(report?.clashes).toEqual([]);

    const sync = await runCli(['sync', '--editor', 'zed'], t.env);
    expect(sync.code, sync.stdout + sync.stderr).toBe(0);
    expect(sync.stdout).not.toMatch(/your own entr/);
    expect(zedEntries(zed).alpha?.url).toBe('http://127.0.0.1:43117/mcp/alpha');

    writeFileSync(
      zed,
      readFileSync(zed, 'utf8').replace('127.0.0.1:43117/mcp/alpha', 'localhost:9999/mcp/alpha'),
    );
    expect((await runCli(['unsync', '--editor', 'zed'], t.env)).code).toBe(0);
    expect(readFileSync(zed, 'utf8')).toBe(ZED);
  });

  it('an entry the user wrote that points at the bridge is theirs: kept by sync and unsync, a clash when named like a server', async () => {
    const zed = install(t, 'zed', ZED);
    await approved('alpha');
    expect((await runCli(['sync', '--editor', 'zed'], t.env)).code).toBe(0);
    // Written by hand: the bridge, with the token from an environment variable.
    const mine = (name: string) =>
      `    "${name}": { "url": "http://127.0.0.1:43117/mcp/alpha", "headers": { "Authorization": "Bearer \${env:SB_TOKEN}" } },\n`;
    const withMine = readFileSync(zed, 'utf8').replace(
      '  "context_servers": {\n',
      `  "context_servers": {\n${mine('by-hand')}`,
    );
    writeFileSync(zed, withMine);

    const sync = await runCli(['sync', '--editor', 'zed'], t.env);
    expect(sync.code, sync.stdout + sync.stderr).toBe(0);
    expect(readFileSync(zed, 'utf8')).toBe(withMine);
    // Not offered for import either: it reaches a server through Switchboard already.
    const listed = await runCli(['import'], t.env);
    expect(listed.stdout).toContain('"local"');
    expect(listed.stdout).not.toContain('by-hand');

    // A server named like the user's entry is not added over it: reported, the entry untouched.
    await approved('alpha', 'by-hand');
    const clash = await runCli(['sync', '--editor', 'zed'], t.env);
    expect(clash.code, clash.stdout + clash.stderr).toBe(0);
    expect(clash.stdout).toMatch(/your own entry named "by-hand" kept/);
    expect(zedEntries(zed)['by-hand']?.headers?.Authorization).toBe('Bearer ${env:SB_TOKEN}');
    expect(state().editors.zed?.entries?.names).toEqual(['alpha']);

    // Unsync takes out what Switchboard wrote, and only that.
    expect((await runCli(['unsync', '--editor', 'zed'], t.env)).code).toBe(0);
    expect(readFileSync(zed, 'utf8')).toBe(
      ZED.replace('  "context_servers": {\n', `  "context_servers": {\n${mine('by-hand')}`),
    );
  });

  it('a running Switchboard puts back its entry when its port is changed by hand, and leaves the user’s bridge entry alone', async () => {
    const zed = install(t, 'zed', ZED);
    await approved('alpha');
    const logs: string[] = [];
    const h = await startHeadless({
      home: t.home,
      keychain: new MemoryKeychain(),
      env: t.env,
      port: 0,
      editorSync: { log: (line) => logs.push(line) },
    });
    try {
      // Once a sync is done, the service watches the file.
      await h.editors?.syncNow('zed');
      const url = zedEntries(zed).alpha?.url ?? '';
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp\/alpha$/);
      const mine = `    "by-hand": { "url": "${url}", "headers": { "Authorization": "Bearer \${env:SB_TOKEN}" } },\n`;
      const edited = readFileSync(zed, 'utf8')
        .replace(url, 'http://127.0.0.1:9999/mcp/alpha')
        .replace('  "context_servers": {\n', `  "context_servers": {\n${mine}`);
      writeFileSync(zed, edited);
      await waitFor(() => zedEntries(zed).alpha?.url === url, 10_000, 'drift put back');
      expect(readFileSync(zed, 'utf8')).toBe(edited.replace('http://127.0.0.1:9999/mcp/alpha', url));
      expect(logs.join('\n')).toMatch(/Zed: alpha changed outside Switchboard/);
    } finally {
      await h.stop();
    }
  });

  it('a file synced before the record existed: entries pointing at the bridge are Switchboard’s until the next sync records them', async () => {
    const zed = install(t, 'zed', ZED);
    await approved('alpha', 'beta');
    expect((await runCli(['sync', '--editor', 'zed'], t.env)).code).toBe(0);
    // state.json as an older Switchboard left it: a layout with the ports it wrote, no record.
    const old = state() as { editors: Record<string, Record<string, unknown>> };
    delete old.editors.zed?.entries;
    writeFileSync(t.home.stateFile, JSON.stringify(old));

    await approved('alpha');
    const sync = await runCli(['sync', '--editor', 'zed'], t.env);
    expect(sync.stdout).toMatch(/removed beta/);
    expect(Object.keys(zedEntries(zed)).sort()).toEqual(['alpha', 'local']);
    expect(state().editors.zed?.entries?.names).toEqual(['alpha']);
  });
});
