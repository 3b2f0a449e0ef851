import { spawn } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ApproveCliResultSchema, LogsResponseSchema, TokenListSchema } from '../../../shared/api.ts';
import { StatusReportSchema } from '../../../shared/status.ts';
import { SecretsResponseSchema } from '../../../shared/ui-api.ts';
import { MemoryKeychain } from '../../../electron/core/secrets/keychain.ts';
import { Core } from '../../../electron/core/core.ts';
import { BIN, exited, runCli, startServe, useHomePerTest } from '../../helpers/cli.ts';
import { fixtureServer, NODE, waitFor } from '../../helpers/servers.ts';

// What a new user meets in the CLI in the first hour (issue 11): mistakes get a clear answer and
// break nothing; a pipe that closes early is not a crash; secrets behave as the error messages say.

const { t, children } = useHomePerTest();

/** A process's resident memory (VmRSS) in KB, from /proc. */
function residentKb(pid: number | undefined): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/^VmRSS:\s+(\d+) kB/m.exec(status)?.[1]);
}

/** `switchboard ARGS | true` in bash: the reader is gone before the command writes. */
function intoClosedPipe(args: string[]): Promise<{ code: string; stderr: string }> {
  const quoted = [NODE, BIN, ...args].map((w) => `'${w}'`).join(' ');
  return new Promise((resolve) => {
    const child = spawn('bash', ['-c', `${quoted} | true; echo "exit=\${PIPESTATUS[0]}"`], { env: t.env });
    let out = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('close', () => resolve({ code: /exit=(\d+)/.exec(out)?.[1] ?? '?', stderr }));
  });
}

describe('the CLI in the first hour', () => {
  it('`switchboard serve` in a checkout without a UI build builds it first, and then serves the UI', async () => {
    // A copy of this checkout as a fresh clone has it: sources, no renderer/dist.
    const root = fileURLToPath(new URL('../../..', import.meta.url));
    const clone = mkdtempSync(join(tmpdir(), 'sb-clone-'));
    try {
      for (const part of ['electron', 'shared', 'renderer', 'package.json', 'tsconfig.json'])
        cpSync(join(root, part), join(clone, part), {
          recursive: true,
          filter: (src) => !/^renderer[/\\](dist|node_modules)/.test(relative(root, src)),
        });
      symlinkSync(join(root, 'node_modules'), join(clone, 'node_modules'));
      const env = { ...t.env };
      delete env.SWITCHBOARD_SKIP_UI_BUILD;
      const bin = join(clone, 'electron', 'cli', 'bin.mjs');
      const serve = await startServe(env, ['--port', '0'], bin);
      children.push(serve.child);
      expect(serve.output()).toContain('Building the UI first (this checkout has no build yet)');
      expect(serve.output()).toMatch(/Built the UI \(not built yet\) in [\d.]+ s/);
      const link = /Open the UI: (\S+)/.exec(serve.output())?.[1] ?? '';
      // The link opens the built UI's page (which then signs the browser in).
      const page = await fetch(link);
      expect(page.status).toBe(200);
      expect(await page.text()).toContain('<title>Switchboard</title>');

      // Issue 24 item 16: the build ran in a child, so this serve is no bigger than one that found
      // the UI built (it used to keep Vite's ~280 MB for its whole life: 373–391 MB against ~100).
      const builtIt = residentKb(serve.child.pid);
      serve.child.kill('SIGTERM');
      await exited(serve.child);
      const plain = await startServe(env, ['--port', '0'], bin);
      children.push(plain.child);
      expect(plain.output()).not.toContain('Building the UI');
      const foundIt = residentKb(plain.child.pid);
      expect(builtIt / foundIt, `${builtIt} KB against ${foundIt} KB`).toBeLessThan(1.5);
    } finally {
      rmSync(clone, { recursive: true, force: true });
    }
  }, 120_000);

  it('stops quietly when the reader of its output goes away (status | head)', async () => {
    t.writeServers({ mcpServers: { a: fixtureServer('mini-server.mjs') } });
    for (const args of [['status'], ['help'], ['approve', 'a']]) {
      const result = await intoClosedPipe(args);
      expect(result.stderr, args.join(' ')).not.toMatch(/EPIPE|Error:|\n\s+at /);
      expect(result.code, args.join(' ')).toMatch(/^[01]$/);
    }
  });

  it('refuses a server name servers.json cannot hold, with exit 2, and leaves the file working', async () => {
    t.writeServers({ mcpServers: { a: fixtureServer('mini-server.mjs') } });
    const before = readFileSync(t.home.serversFile, 'utf8');
    for (const name of ['bad name', 'x'.repeat(53)]) {
      const result = await runCli(['add', name, '--', 'node', 'x'], t.env);
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(
        /server name ".*": server names may use only letters, digits, "-" and "_" \(at most 48\)/,
      );
      expect(result.stdout).not.toContain('Added');
    }
    expect(readFileSync(t.home.serversFile, 'utf8')).toBe(before);
    const next = await runCli(['add', 'good', '--', 'node', 'x'], t.env);
    expect(next.code, next.stderr).toBe(0);
  });

  it('says "no server named" for start, stop and restart of a server that does not exist', async () => {
    t.writeServers({ mcpServers: { a: fixtureServer('mini-server.mjs') } });
    const core = new Core({ home: t.home, keychain: new MemoryKeychain(), env: t.env });
    await core.lifecycle.start();
    try {
      for (const action of [
        core.lifecycle.startServer,
        core.lifecycle.stopServer,
        core.lifecycle.restartServer,
      ]) {
        await expect(action.call(core.lifecycle, 'nope')).rejects.toThrow(/no server named "nope"/);
      }
    } finally {
      await core.lifecycle.shutdown();
    }
  });

  it('refuses a blank secret', async () => {
    const result = await runCli(['secret', 'set', 'blank'], t.env, '   \n');
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('secret "blank": a secret cannot be empty or only spaces');
  });

  it('warns before deleting a secret a server uses, and deletes it only when told', async () => {
    const set = await runCli(['secret', 'set', 'fh-token'], t.env, 'fh-value-123\n');
    expect(set.code, set.stderr).toBe(0);
    t.writeServers({
      mcpServers: { a: { ...fixtureServer('mini-server.mjs'), env: { TOKEN: '${secret:fh-token}' } } },
    });
    const refused = await runCli(['secret', 'rm', 'fh-token'], t.env);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('a uses ${secret:fh-token}: without it it cannot start.');
    expect(refused.stderr).toContain('switchboard secret rm fh-token --force');
    expect((await runCli(['secret', 'list'], t.env)).stdout).toContain('fh-token');
    const forced = await runCli(['secret', 'rm', 'fh-token', '--force'], t.env);
    expect(forced.code, forced.stderr).toBe(0);
    // Still referenced, so still listed — as missing, with who needs it.
    expect((await runCli(['secret', 'list'], t.env)).stdout).toContain(
      'fh-token  — not in the keychain  (used by a)',
    );
  });

  it('starts a server that was waiting for a secret as soon as `secret set` stores it', async () => {
    await runCli(['secret', 'rm', 'fh-late', '--force'], t.env);
    t.writeServers({
      mcpServers: {
        late: { ...fixtureServer('env-echo-server.mjs', 'LATE'), env: { LATE: '${secret:fh-late}' } },
      },
    });
    expect((await runCli(['approve', 'late', '--yes'], t.env)).code).toBe(0);
    const serve = await startServe(t.env);
    children.push(serve.child);
    const state = async () => {
      const out = (await runCli(['status', '--json'], t.env)).stdout;
      return StatusReportSchema.parse(JSON.parse(out)).servers.find((s) => s.name === 'late');
    };
    const waiting = await waitFor(
      async () => ((await state())?.state === 'error' ? state() : undefined),
      30_000,
      'late in error',
    );
    expect(waiting?.lastError).toContain('fh-late');
    const set = await runCli(['secret', 'set', 'fh-late'], t.env, 'late-value-456\n');
    expect(set.code, set.stderr).toBe(0);
    expect(set.stdout).toContain('Restarted to use it: late.');
    await waitFor(async () => (await state())?.state === 'running', 30_000, 'late running');
    await runCli(['secret', 'rm', 'fh-late', '--force'], t.env);
  });
});

describe('--json for scripts', () => {
  it('approve --json shows what it would approve and approves only what --fingerprint names', async () => {
    t.writeServers({ mcpServers: { j: fixtureServer('mini-server.mjs') } });
    const shown = await runCli(['approve', 'j', '--json'], t.env);
    expect(shown.code).toBe(1);
    const first = ApproveCliResultSchema.parse(JSON.parse(shown.stdout));
    expect(first.approved).toBe(false);
    expect(first.preview).toMatchObject({ name: 'j', state: 'pending-approval', transport: 'stdio' });
    expect(first.preview.lines.join('\n')).toContain('mini-server.mjs');
    const approved = await runCli(
      ['approve', 'j', '--fingerprint', first.preview.fingerprint, '--json'],
      t.env,
    );
    expect(approved.code, approved.stderr).toBe(0);
    expect(ApproveCliResultSchema.parse(JSON.parse(approved.stdout)).approved).toBe(true);
    expect(
      StatusReportSchema.parse(JSON.parse((await runCli(['status', '--json'], t.env)).stdout)).servers,
    ).toEqual([expect.objectContaining({ name: 'j', state: 'stopped' })]);
  });

  it('prints logs, secrets, tokens and backups as the documented JSON', async () => {
    const set = await runCli(['secret', 'set', 'fh-json'], t.env, 'json-value-789\n');
    expect(set.code, set.stderr).toBe(0);
    t.writeServers({
      mcpServers: { a: { ...fixtureServer('mini-server.mjs'), env: { TOKEN: '${secret:fh-json}' } } },
    });
    const secrets = await runCli(['secret', 'list', '--json'], t.env);
    expect(secrets.code, secrets.stderr).toBe(0);
    const report = SecretsResponseSchema.parse(JSON.parse(secrets.stdout));
    expect(report.secrets.find((s) => s.name === 'fh-json')).toEqual({
      name: 'fh-json',
      stored: true,
      usedBy: [{ server: 'a', field: 'env', key: 'TOKEN' }],
    });
    expect(secrets.stdout).not.toContain('json-value-789');
    const plain = await runCli(['secret', 'list'], t.env);
    expect(plain.stdout).toContain('fh-json  (used by a)');

    expect((await runCli(['token', 'create', 'script'], t.env)).code).toBe(0);
    const tokens = TokenListSchema.parse(
      JSON.parse((await runCli(['token', 'list', '--json'], t.env)).stdout),
    );
    expect(tokens.tokens.map((x) => x.name)).toEqual(['script']);

    const backups = JSON.parse((await runCli(['backups', '--json'], t.env)).stdout) as { backups: unknown[] };
    expect(backups).toEqual({ backups: [] });

    expect((await runCli(['approve', 'a', '--yes'], t.env)).code).toBe(0);
    const serve = await startServe(t.env);
    children.push(serve.child);
    await waitFor(
      async () => {
        const out = (await runCli(['status', '--json'], t.env)).stdout;
        return (
          StatusReportSchema.parse(JSON.parse(out)).servers.find((s) => s.name === 'a')?.state === 'running'
        );
      },
      30_000,
      'a running',
    );
    const logs = await runCli(['logs', 'a', '--json'], t.env);
    expect(logs.code, logs.stderr).toBe(0);
    const lines = LogsResponseSchema.parse(JSON.parse(logs.stdout)).lines;
    expect(lines.some((l) => l.source === 'lifecycle' && l.text.startsWith('running'))).toBe(true);
    serve.child.kill('SIGTERM');
    await exited(serve.child);
    // Without a running Switchboard, the log file is read back into the same shape.
    const offline = LogsResponseSchema.parse(
      JSON.parse((await runCli(['logs', 'a', '--json'], t.env)).stdout),
    );
    expect(offline.lines.map((l) => l.text)).toEqual(
      expect.arrayContaining([expect.stringMatching(/^running/)]),
    );
    await runCli(['secret', 'rm', 'fh-json', '--force'], t.env);
  });
});
