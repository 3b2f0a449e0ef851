import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  ImportCliResultSchema,
  SyncCliResultSchema,
  UnsyncCliResultSchema,
} from '../../../shared/editor-report.ts';
import { runCli } from '../../helpers/cli.ts';
import { NODE } from '../../helpers/servers.ts';
import { tempHome, type TempHome } from '../../helpers/temp-home.ts';
import { editorFile, install } from '../editors/helpers.ts';

// `sync` says per editor what it did (issue 11): written, up to date, skipped and why, failed.
// No keychain secret is stored here (import --json lists without --yes).

let t: TempHome;
beforeEach(() => {
  t = tempHome();
});
afterEach(() => t.cleanup());

async function approved(...names: string[]): Promise<void> {
  t.writeServers({
    mcpServers: Object.fromEntries(names.map((n) => [n, { command: NODE, args: [`${n}.js`] }])),
  });
  for (const name of names) expect((await runCli(['approve', name, '--yes'], t.env)).code).toBe(0);
}

const lineOf = (out: string, label: string) => out.split('\n').find((l) => l.startsWith(`${label}:`)) ?? '';

describe('sync reports per editor', () => {
  it('after unsync: each installed editor is "skipped — sync is turned off", not "No editor found"; sync --all turns them all back on', async () => {
    install(t, 'zed', '{}\n');
    install(t, 'cursor');
    await approved('alpha');
    expect((await runCli(['sync'], t.env)).code).toBe(0);
    const unsync = await runCli(['unsync'], t.env);
    expect(unsync.stdout).toContain('turn it back on with: switchboard sync --all');

    for (const args of [['sync'], ['sync', '--dry-run']]) {
      const off = await runCli(args, t.env);
      expect(off.code, off.stderr).toBe(0);
      expect(off.stdout).not.toMatch(/No editor found|every editor was up to date/);
      expect(lineOf(off.stdout, 'Zed')).toMatch(/skipped — sync is turned off .*switchboard sync --all/);
      expect(lineOf(off.stdout, 'Cursor')).toMatch(/skipped — sync is turned off/);
      // Not installed says so, although unsync turned sync off for every editor.
      expect(lineOf(off.stdout, 'Windsurf')).toMatch(/skipped — not installed/);
    }

    const on = await runCli(['sync', '--all'], t.env);
    expect(on.code, on.stderr).toBe(0);
    expect(lineOf(on.stdout, 'Zed')).toMatch(/added alpha/);
    expect(lineOf(on.stdout, 'Cursor')).toMatch(/added alpha/);
    expect(on.stdout).not.toMatch(/Windsurf/); // --all: the installed editors only
    expect(readFileSync(editorFile(t, 'zed'), 'utf8')).toContain('alpha');
    // On for good: a plain sync finds them up to date.
    const again = await runCli(['sync'], t.env);
    expect(lineOf(again.stdout, 'Zed')).toMatch(/up to date \(1 server/);
    expect((await runCli(['sync', '--all', '--editor', 'zed'], t.env)).code).toBe(2);
  });

  it('a Zed file with a JSON typo is skipped with its file, line and column; the others are written; exit 1', async () => {
    const broken = '{\n  "theme": "One Dark",,\n}\n';
    const zed = install(t, 'zed', broken);
    install(t, 'cursor');
    await approved('alpha');
    const result = await runCli(['sync'], t.env);
    expect(result.code, result.stdout).toBe(1);
    expect(lineOf(result.stdout, 'Zed')).toMatch(/skipped — its file does not parse: .*line 2, column 23/);
    expect(lineOf(result.stdout, 'Zed')).toContain(zed);
    expect(lineOf(result.stdout, 'Cursor')).toMatch(/added alpha/);
    expect(readFileSync(zed, 'utf8')).toBe(broken);

    const json = await runCli(['sync', '--dry-run', '--json'], t.env);
    expect(json.code).toBe(1);
    const report = SyncCliResultSchema.parse(JSON.parse(json.stdout));
    expect(report.dryRun).toBe(true);
    const zedReport = report.editors.find((e) => e.editor === 'zed');
    expect(zedReport).toMatchObject({ outcome: 'skipped', reason: 'unparseable', file: zed });
    expect(zedReport?.location).toEqual({ line: 2, column: 23 });
    expect(report.editors.find((e) => e.editor === 'cursor')?.outcome).toBe('up-to-date');
    expect(report.editors.find((e) => e.editor === 'windsurf')?.reason).toBe('not-installed');
  });

  it('a file Switchboard cannot write is "failed", and exits 1', async () => {
    install(t, 'zed', '{}\n');
    const cursor = install(t, 'cursor', '{}\n');
    chmodSync(cursor, 0o444);
    await approved('alpha');
    const result = await runCli(['sync', '--json'], t.env);
    expect(result.code).toBe(1);
    const report = SyncCliResultSchema.parse(JSON.parse(result.stdout));
    expect(report.editors.find((e) => e.editor === 'cursor')).toMatchObject({
      outcome: 'failed',
      reason: null,
    });
    expect(report.editors.find((e) => e.editor === 'cursor')?.message).toMatch(/read-only/);
    expect(report.editors.find((e) => e.editor === 'zed')?.outcome).toBe('written');
  });

  it('unsync --json: one document with every editor and where sync is now off', async () => {
    install(t, 'zed', '{}\n');
    await approved('alpha');
    expect((await runCli(['sync'], t.env)).code).toBe(0);
    const result = await runCli(['unsync', '--json'], t.env);
    expect(result.code, result.stderr).toBe(0);
    const report = UnsyncCliResultSchema.parse(JSON.parse(result.stdout));
    expect(report.editors.find((e) => e.editor === 'zed')).toMatchObject({
      outcome: 'written',
      removed: ['alpha'],
    });
    expect(report.syncOff).toContain('zed');
  });

  it('Gemini CLI: the first sync into it says once how to trust a folder; later syncs do not repeat it', async () => {
    install(t, 'gemini-cli');
    await approved('alpha');
    const first = await runCli(['sync'], t.env);
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(/Gemini CLI connects to MCP servers only in folders you trust/);
    expect(first.stdout).toContain('/permissions');
    expect(first.stdout.match(/folders you trust/g)).toHaveLength(1);
    await approved('alpha', 'beta');
    const second = await runCli(['sync'], t.env);
    expect(lineOf(second.stdout, 'Gemini CLI')).toMatch(/added beta/);
    expect(second.stdout).not.toMatch(/folders you trust/);
  });
});

describe('import labels and --json', () => {
  it("VS Code's ${input:…} is labelled once, as cannot import — never as a literal secret", async () => {
    const file = install(t, 'vscode');
    writeFileSync(
      file,
      JSON.stringify({
        inputs: [{ id: 'gh', type: 'promptString', password: true }],
        servers: {
          github: { command: 'npx', args: ['-y', 'gh-mcp'], env: { GITHUB_TOKEN: '${input:gh}' } },
        },
      }),
    );
    t.writeServers({ mcpServers: {} });
    const text = await runCli(['import'], t.env);
    expect(text.stdout).toMatch(/"github" — cannot import: it asks VS Code for a value/);
    expect(text.stdout).toContain('env: GITHUB_TOKEN=${input:gh}');
    expect(text.stdout).not.toMatch(/literal secret/);

    const json = await runCli(['import', '--json'], t.env);
    expect(json.code, json.stderr).toBe(0);
    const listing = ImportCliResultSchema.parse(JSON.parse(json.stdout));
    expect(listing.candidates).toEqual([
      expect.objectContaining({
        editor: 'vscode',
        entry: 'github',
        verdict: 'cannot-import',
        movesToKeychain: [],
        shows: expect.arrayContaining(['env: GITHUB_TOKEN=${input:gh}']),
      }),
    ]);
    expect(listing.imported).toBeNull();
  });
});
