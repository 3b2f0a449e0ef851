import { spawn } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  renameSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parse } from 'jsonc-parser';
import { runCli } from '../../helpers/cli.ts';
import { NODE } from '../../helpers/servers.ts';
import { tempHome, type TempHome } from '../../helpers/temp-home.ts';
import { engineFor, install } from './helpers.ts';

let t: TempHome;
beforeEach(() => {
  t = tempHome();
});
afterEach(() => t.cleanup());

const ZED = `// my settings
{
  "theme": "One Dark", // dark!
  "context_servers": {
    "mine": { "command": "my-server" },
  },
}
`;
const servers = [{ name: 'alpha' }, { name: 'beta' }];

function bytes(file: string): Buffer {
  return readFileSync(file);
}

describe('editor files on disk', () => {
  it('writes through a symlink (dotfile managers): the link stays a link, the target gets the change and, holding a token now, becomes owner-only', async () => {
    const zedDir = join(t.env.XDG_CONFIG_HOME ?? '', 'zed');
    mkdirSync(zedDir, { recursive: true });
    const dotfiles = join(t.dir, 'dotfiles');
    mkdirSync(dotfiles);
    const target = join(dotfiles, 'zed-settings.json');
    writeFileSync(target, ZED);
    chmodSync(target, 0o640);
    const link = join(zedDir, 'settings.json');
    symlinkSync(target, link);

    const [report] = await engineFor(t).sync(servers, { editors: ['zed'] });
    expect(report?.status, report?.problem).toBe('written');
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(report?.madePrivate).toBe(true);
    expect(statSync(target).mode & 0o777).toBe(0o600);
    const parsed = parse(readFileSync(target, 'utf8')) as { context_servers: Record<string, unknown> };
    expect(Object.keys(parsed.context_servers)).toEqual(['mine', 'alpha', 'beta']);
    // No stray temp files left beside either.
    expect(readdirSync(dotfiles)).toEqual(['zed-settings.json']);

    await engineFor(t).unsync(['zed']);
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(readFileSync(target, 'utf8')).toBe(ZED);
  });

  it('reports a read-only file and leaves it byte for byte (even for root)', async () => {
    const file = install(t, 'zed', ZED);
    chmodSync(file, 0o444);
    const before = bytes(file);
    const [report] = await engineFor(t).sync(servers, { editors: ['zed'] });
    expect(report?.status).toBe('failed');
    expect(report?.problem).toMatch(/read-only; left unchanged/);
    expect(bytes(file).equals(before)).toBe(true);
    expect(statSync(file).mode & 0o777).toBe(0o444);
  });

  it('reports a file that does not parse with line and column, and leaves it byte for byte', async () => {
    const broken = '{\n  "theme": "One Dark"\n  "vim_mode": true\n}\n';
    const file = install(t, 'zed', broken);
    const [report] = await engineFor(t).sync(servers, { editors: ['zed'] });
    expect(report?.status).toBe('failed');
    expect(report?.problem).toContain(file);
    expect(report?.problem).toMatch(/line 3, column 3/);
    expect(readFileSync(file, 'utf8')).toBe(broken);
    // The CLI says the same (skipped: the user's file, left alone), exits 1, and still writes the others.
    install(t, 'cursor');
    t.writeServers({ mcpServers: { alpha: { command: NODE, args: ['x.js'] } } });
    expect((await runCli(['approve', 'alpha', '--yes'], t.env)).code).toBe(0);
    const cli = await runCli(['sync'], t.env);
    expect(cli.code).toBe(1);
    expect(cli.stdout).toMatch(/Zed: skipped — its file does not parse: .*line 3, column 3/);
    expect(cli.stdout).toMatch(/Cursor: added/);
    expect(readFileSync(file, 'utf8')).toBe(broken);
  });

  it('leaves bytes that are not UTF-8, and a symlink to nowhere, alone', async () => {
    const file = install(t, 'cursor');
    const latin1 = Buffer.from('{ "note": "caf\xe9" }\n', 'latin1');
    writeFileSync(file, latin1);
    const [a] = await engineFor(t).sync(servers, { editors: ['cursor'] });
    expect(a?.problem).toMatch(/not UTF-8/);
    expect(bytes(file).equals(latin1)).toBe(true);

    const gemini = join(t.env.HOME ?? '', '.gemini');
    mkdirSync(gemini, { recursive: true });
    symlinkSync(join(t.dir, 'nowhere.json'), join(gemini, 'settings.json'));
    const [b] = await engineFor(t).sync(servers, { editors: ['gemini-cli'] });
    expect(b?.problem).toMatch(/symbolic link to a file that does not exist/);
    expect(lstatSync(join(gemini, 'settings.json')).isSymbolicLink()).toBe(true);
  });

  it('--dry-run prints a unified diff and writes nothing at all', async () => {
    const file = install(t, 'zed', ZED);
    t.writeServers({ mcpServers: { alpha: { command: NODE, args: ['x.js'] } } });
    expect((await runCli(['approve', 'alpha', '--yes'], t.env)).code).toBe(0);
    const stateBefore = readFileSync(t.home.stateFile, 'utf8');
    const result = await runCli(['sync', '--dry-run'], t.env);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain(`--- ${file}`);
    expect(result.stdout).toMatch(/^\+ {4}"alpha": \{$/m);
    expect(result.stdout).toContain('"Authorization": "Bearer <zed token>"');
    expect(readFileSync(file, 'utf8')).toBe(ZED);
    expect(existsSync(t.home.backups)).toBe(false);
    expect(existsSync(join(t.home.tokens, 'editors', 'zed'))).toBe(false);
    expect(existsSync(join(t.home.run, 'locks'))).toBe(false); // a read takes no lock
    expect(readFileSync(t.home.stateFile, 'utf8')).toBe(stateBefore);

    // Once synced, the file holds Zed's real token. After a rotation (serve not running, so the file
    // still holds the old one), the dry run's current side has that token: it must read as hidden.
    expect((await runCli(['sync'], t.env)).code).toBe(0);
    const token = readFileSync(join(t.home.tokens, 'editors', 'zed'), 'utf8').trim();
    expect(readFileSync(file, 'utf8')).toContain(token);
    expect((await runCli(['token', 'create', 'zed'], t.env)).code).toBe(0);
    const again = await runCli(['sync', '--dry-run'], t.env);
    expect(again.stdout).toMatch(/^- +"Authorization": "•••••••• \(hidden\)"$/m);
    expect(again.stdout).not.toContain(token);
  });

  it('an outside write racing a sync is never overwritten: the sync starts again from it', async () => {
    const file = install(t, 'zed', ZED);
    let raced = false;
    const engine = engineFor(t, {
      beforeRename: (_editor, target, attempt) => {
        // Between Switchboard's read and its rename, the user's editor saves the file (by rename, as editors do).
        if (attempt === 1 && !raced) {
          raced = true;
          writeFileSync(target + '.editor-save', ZED.replace('"theme": "One Dark"', '"theme": "Solarized"'));
          renameSync(target + '.editor-save', target);
        }
      },
    });
    const [report] = await engine.sync(servers, { editors: ['zed'] });
    expect(raced).toBe(true);
    expect(report?.status).toBe('written');
    const text = readFileSync(file, 'utf8');
    expect(text).toContain('"theme": "Solarized"');
    expect(Object.keys((parse(text) as { context_servers: object }).context_servers)).toEqual([
      'mine',
      'alpha',
      'beta',
    ]);
  });

  it('a file that keeps changing is reported after a few tries, and its last bytes are kept', async () => {
    const file = install(t, 'zed', ZED);
    let n = 0;
    const engine = engineFor(t, {
      attempts: 3,
      beforeRename: (_editor, target) => writeFileSync(target, ZED.replace('One Dark', `Theme ${++n}`)),
    });
    const [report] = await engine.sync(servers, { editors: ['zed'] });
    expect(report?.status).toBe('failed');
    expect(report?.problem).toMatch(/kept changing .* nothing was overwritten/);
    expect(readFileSync(file, 'utf8')).toBe(ZED.replace('One Dark', 'Theme 3'));
  });

  it('two syncs at once (two processes, and two in one process) lose nothing and write each entry once', async () => {
    const file = install(t, 'zed', ZED);
    t.writeServers({
      mcpServers: { alpha: { command: NODE, args: ['a.js'] }, beta: { command: NODE, args: ['b.js'] } },
    });
    for (const name of ['alpha', 'beta'])
      expect((await runCli(['approve', name, '--yes'], t.env)).code).toBe(0);
    const [a, b] = await Promise.all([
      runCli(['sync', '--editor', 'zed'], t.env),
      runCli(['sync', '--editor', 'zed'], t.env),
    ]);
    expect(a.code, a.stdout + a.stderr).toBe(0);
    expect(b.code, b.stdout + b.stderr).toBe(0);
    const text = readFileSync(file, 'utf8');
    expect(text.match(/"alpha":/g)).toHaveLength(1);
    expect(text.match(/"beta":/g)).toHaveLength(1);
    expect(text.startsWith('// my settings\n{\n  "theme": "One Dark", // dark!')).toBe(true);
    // In one process, concurrently, with the other one's unsync racing too.
    const engine = engineFor(t);
    await Promise.all([
      engine.sync(servers, { editors: ['zed'] }),
      engineFor(t).sync(servers, { editors: ['zed'] }),
    ]);
    expect(readFileSync(file, 'utf8')).toBe(text);
    const unsync = await runCli(['unsync', '--editor', 'zed'], t.env);
    expect(unsync.code).toBe(0);
    expect(readFileSync(file, 'utf8')).toBe(ZED);
  });

  it("a sync racing a real outside writer process never loses the writer's last save", async () => {
    const file = install(t, 'zed', ZED);
    // Another program rewrites the file 200 times (read-modify-write, no lock), as an editor saving would.
    const writer = spawn(
      NODE,
      [
        '-e',
        `const fs=require('fs');const f=process.argv[1];for(let i=1;i<=200;i++){const t=fs.readFileSync(f,'utf8');` +
          `const n=t.replace(/"theme": "[^"]*"/,'"theme": "T'+i+'"');fs.writeFileSync(f+'.tmp',n);fs.renameSync(f+'.tmp',f);` +
          `const s=Date.now();while(Date.now()-s<2){}}`,
        file,
      ],
      { stdio: 'inherit' },
    );
    const done = new Promise((r) => writer.on('exit', r));
    const engine = engineFor(t, { attempts: 50 });
    const names = [['alpha'], ['alpha', 'beta'], ['beta'], ['alpha', 'beta']];
    let i = 0;
    while (writer.exitCode === null) {
      await engine.sync(names[i++ % names.length]?.map((name) => ({ name })) ?? [], { editors: ['zed'] });
      // A sync that meets no conflict never leaves the microtask queue: let the writer's exit be seen.
      await new Promise((r) => setImmediate(r));
    }
    await done;
    // The writer's final save survived every sync: it read our entries and kept them, we re-read its theme.
    const final = await engine.sync(servers, { editors: ['zed'] });
    expect(final[0]?.status).not.toBe('failed');
    const text = readFileSync(file, 'utf8');
    expect(text).toContain('"theme": "T200"');
    expect(text).toContain('// dark!');
    expect(Object.keys((parse(text) as { context_servers: object }).context_servers).sort()).toEqual([
      'alpha',
      'beta',
      'mine',
    ]);
  });
});
