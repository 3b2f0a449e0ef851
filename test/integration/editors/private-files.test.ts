import { chmodSync, lstatSync, mkdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { exited, runCli, startServe } from '../../helpers/cli.ts';
import { NODE, waitFor } from '../../helpers/servers.ts';
import { tempHome, type TempHome } from '../../helpers/temp-home.ts';
import { editorFile, install } from './helpers.ts';

// An editor file holding a bridge token must not stay readable by other users of the computer: the
// token calls every server as its owner. Files Switchboard writes a token into become owner-only, and
// the person is told once; files that hold no token keep their mode.

let t: TempHome;
beforeEach(() => {
  t = tempHome();
});
afterEach(() => t.cleanup());

const NOTICE = /this file is now readable only by you \(0600\): it holds (.+?)'s Switchboard token/g;

async function approved(...names: string[]): Promise<void> {
  t.writeServers({
    mcpServers: Object.fromEntries(names.map((n) => [n, { command: NODE, args: [`${n}.js`] }])),
  });
  for (const name of names) expect((await runCli(['approve', name, '--yes'], t.env)).code).toBe(0);
}

const mode = (file: string) => statSync(file).mode & 0o777;
const notices = (output: string) => [...output.matchAll(NOTICE)].map((m) => m[1]);

describe('editor files that hold a bridge token', () => {
  it('a 0644 Cursor and VS Code file become 0600 at the sync that writes the token, said once', async () => {
    const cursor = install(t, 'cursor', '{\n  "mcpServers": {}\n}\n');
    const vscode = install(t, 'vscode', '{\n  "servers": {}\n}\n');
    chmodSync(cursor, 0o644);
    chmodSync(vscode, 0o644);
    await approved('alpha');

    const first = await runCli(['sync'], t.env);
    expect(first.code, first.stderr).toBe(0);
    expect(mode(cursor)).toBe(0o600);
    expect(mode(vscode)).toBe(0o600);
    expect(notices(first.stdout).sort()).toEqual(['Cursor', 'VS Code']);
    // Among the lines about that editor's file.
    const esc = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    expect(first.stdout).toMatch(
      new RegExp(
        `Cursor: added alpha \\(${esc(cursor)}\\)\\n(  .*\\n)*  this file is now readable only by you`,
      ),
    );

    // The next sync writes the files again (a new server): nothing more to say about their mode.
    await approved('alpha', 'beta');
    const second = await runCli(['sync'], t.env);
    expect(second.stdout).toMatch(/Cursor: added beta/);
    expect(notices(second.stdout)).toEqual([]);
    expect(mode(cursor)).toBe(0o600);
  });

  it('a file that already holds its token and is readable by others is made owner-only even when nothing else changes', async () => {
    const cursor = install(t, 'cursor', '{\n  "mcpServers": {}\n}\n');
    await approved('alpha');
    expect((await runCli(['sync'], t.env)).code).toBe(0);
    chmodSync(cursor, 0o644); // as an older Switchboard left it, or loosened by hand
    const before = readFileSync(cursor, 'utf8');

    const again = await runCli(['sync'], t.env);
    expect(again.stdout).toMatch(/Cursor: up to date \(1 server;/);
    expect(notices(again.stdout)).toEqual(['Cursor']);
    expect(mode(cursor)).toBe(0o600);
    expect(readFileSync(cursor, 'utf8')).toBe(before);
    expect(notices((await runCli(['sync'], t.env)).stdout)).toEqual([]);
  });

  it('through a symlink the target becomes owner-only and the link stays; Claude Desktop’s file (no token) keeps its mode', async () => {
    const dotfiles = join(t.dir, 'dotfiles');
    mkdirSync(dotfiles);
    const target = join(dotfiles, 'cursor-mcp.json');
    writeFileSync(target, '{ "mcpServers": {} }\n');
    chmodSync(target, 0o644);
    mkdirSync(join(t.env.HOME ?? '', '.cursor'), { recursive: true });
    const link = editorFile(t, 'cursor');
    symlinkSync(target, link);
    const claude = install(t, 'claude-desktop', '{\n  "mcpServers": {}\n}\n');
    chmodSync(claude, 0o644);
    await approved('alpha');

    const result = await runCli(['sync'], t.env);
    expect(result.code, result.stderr).toBe(0);
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(mode(target)).toBe(0o600);
    expect(readFileSync(target, 'utf8')).toContain('Bearer ');
    expect(result.stdout).toMatch(/Claude Desktop: added alpha/);
    expect(readFileSync(claude, 'utf8')).not.toContain('Bearer ');
    expect(mode(claude)).toBe(0o644);
    expect(notices(result.stdout)).toEqual(['Cursor']);
  });

  it('with Switchboard running, `switchboard sync` says it too', async () => {
    await approved('alpha');
    const serve = await startServe(t.env);
    try {
      // serve's own first sync runs after it listens: a sync through it returns only after that one
      // (one queue), so the Cursor file made next is new to serve and written by this test's sync.
      expect((await runCli(['sync'], t.env)).code).toBe(0);
      const cursor = install(t, 'cursor', '{\n  "mcpServers": {}\n}\n');
      chmodSync(cursor, 0o644);
      const result = await runCli(['sync', '--editor', 'cursor'], t.env);
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout).toContain('Switchboard is running: it synced the editors.');
      expect(result.stdout).toMatch(/^Cursor: (added|removed) /m);
      expect(notices(result.stdout)).toEqual(['Cursor']);
      await waitFor(() => mode(cursor) === 0o600, 5_000, 'the file owner-only');
    } finally {
      serve.child.kill('SIGTERM');
      await exited(serve.child);
    }
  });

  it('unsync gives back the mode a file had before it was made owner-only, unless a token stays in it', async () => {
    // Issue 36 item 10: the bytes came back, the mode did not.
    const original = '{\n  "mcpServers": {}\n}\n';
    const cursor = install(t, 'cursor', original);
    const vscode = install(t, 'vscode', '{\n  "servers": {}\n}\n');
    const windsurf = install(t, 'windsurf', '{\n  "mcpServers": {}\n}\n');
    chmodSync(cursor, 0o644);
    chmodSync(vscode, 0o640);
    chmodSync(windsurf, 0o644);
    await approved('alpha');
    expect((await runCli(['sync'], t.env)).code).toBe(0);
    expect([mode(cursor), mode(vscode), mode(windsurf)]).toEqual([0o600, 0o600, 0o600]);
    // The person copies Windsurf's entry (with its token) into an entry of their own.
    const synced = JSON.parse(readFileSync(windsurf, 'utf8')) as { mcpServers: Record<string, unknown> };
    writeFileSync(
      windsurf,
      JSON.stringify({ mcpServers: { ...synced.mcpServers, 'my-copy': synced.mcpServers.alpha } }, null, 2),
    );

    const unsync = await runCli(['unsync'], t.env);
    expect(unsync.code, unsync.stdout + unsync.stderr).toBe(0);
    expect(readFileSync(cursor, 'utf8')).toBe(original);
    expect(mode(cursor)).toBe(0o644);
    expect(mode(vscode)).toBe(0o640);
    // A token is still in it (the person's own copy): it stays owner-only.
    expect(readFileSync(windsurf, 'utf8')).toContain('Bearer ');
    expect(mode(windsurf)).toBe(0o600);
  });

  it('a mode the person set by hand after the sync is kept by unsync', async () => {
    const cursor = install(t, 'cursor', '{\n  "mcpServers": {}\n}\n');
    chmodSync(cursor, 0o644);
    await approved('alpha');
    expect((await runCli(['sync'], t.env)).code).toBe(0);
    chmodSync(cursor, 0o660);
    expect((await runCli(['unsync'], t.env)).code).toBe(0);
    expect(mode(cursor)).toBe(0o660);
  });
});
