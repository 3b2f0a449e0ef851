import { readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { InstanceInfoSchema } from '../../../shared/api.ts';
import { runCli, startServe, useHomePerTest } from '../../helpers/cli.ts';
import { bearer, call } from '../../helpers/http.ts';
import { waitFor } from '../../helpers/servers.ts';

const { t, children } = useHomePerTest();

const TOKEN = /^[A-Za-z0-9_-]{43}$/;
const INITIALIZE = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: {
    protocolVersion: '2025-06-18',
    capabilities: {},
    clientInfo: { name: 'token-test', version: '1' },
  },
});

function mcp(port: number, token: string) {
  return call(port, 'POST', '/mcp', {
    headers: {
      ...bearer(token),
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    },
    body: INITIALIZE,
  });
}

describe('switchboard token', () => {
  it('creates, lists, rotates and revokes editor tokens on disk (0600 files, 0700 folders)', async () => {
    const create = await runCli(['token', 'create', 'zed'], t.env);
    expect(create.code, create.stderr).toBe(0);
    const token = create.stdout.trim();
    expect(token).toMatch(TOKEN);
    const file = join(t.home.tokens, 'editors', 'zed');
    expect(create.stderr).toContain(file);
    expect(readFileSync(file, 'utf8').trim()).toBe(token);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(join(t.home.tokens, 'editors')).mode & 0o777).toBe(0o700);
    expect(statSync(t.home.tokens).mode & 0o777).toBe(0o700);

    const list = await runCli(['token', 'list'], t.env);
    expect(list.code).toBe(0);
    expect(list.stdout).toMatch(/^zed\s/m);
    expect(list.stdout).not.toContain(token);

    // create again = rotate: a new token, the old one gone
    const again = await runCli(['token', 'create', 'zed'], t.env);
    expect(again.code).toBe(0);
    expect(again.stdout.trim()).toMatch(TOKEN);
    expect(again.stdout.trim()).not.toBe(token);
    expect(again.stderr).toContain('no longer works');

    const revoke = await runCli(['token', 'revoke', 'zed'], t.env);
    expect(revoke.code, revoke.stderr).toBe(0);
    expect((await runCli(['token', 'list'], t.env)).stdout).toContain('No editor tokens yet');
    const missing = await runCli(['token', 'revoke', 'zed'], t.env);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('no token named "zed"');
  });

  it('refuses bad names and bad usage with the documented exit codes', async () => {
    for (const name of ['Zed', 'a/b', '..', 'x'.repeat(33), 'control']) {
      const result = await runCli(['token', 'create', name], t.env);
      expect(result.code, name).toBe(1);
      expect(result.stdout).toBe('');
    }
    expect((await runCli(['token'], t.env)).code).toBe(2);
    expect((await runCli(['token', 'create'], t.env)).code).toBe(2);
    expect((await runCli(['token', 'list', 'extra'], t.env)).code).toBe(2);
  });

  it('against a running serve: a created token works on /mcp at once, and a revoke takes effect at once', async () => {
    const serve = await startServe(t.env);
    children.push(serve.child);
    const { port } = InstanceInfoSchema.parse(
      JSON.parse(readFileSync(join(t.home.run, 'serve.json'), 'utf8')),
    );

    const create = await runCli(['token', 'create', 'vscode'], t.env);
    expect(create.code, create.stderr).toBe(0);
    const token = create.stdout.trim();
    expect((await mcp(port, token)).status).toBe(200);
    const list = await runCli(['token', 'list'], t.env);
    expect(list.stdout).toMatch(/^vscode\s/m);

    // Rotation through the running instance: the old token stops working, the new one works.
    const rotated = (await runCli(['token', 'create', 'vscode'], t.env)).stdout.trim();
    expect((await mcp(port, token)).status).toBe(401);
    expect((await mcp(port, rotated)).status).toBe(200);

    const revoke = await runCli(['token', 'revoke', 'vscode'], t.env);
    expect(revoke.code, revoke.stderr).toBe(0);
    expect((await mcp(port, rotated)).status).toBe(401);
  });

  it('against a running serve: a token file deleted by hand stops working without a restart', async () => {
    const serve = await startServe(t.env);
    children.push(serve.child);
    const { port } = InstanceInfoSchema.parse(
      JSON.parse(readFileSync(join(t.home.run, 'serve.json'), 'utf8')),
    );
    const token = (await runCli(['token', 'create', 'cursor'], t.env)).stdout.trim();
    expect((await mcp(port, token)).status).toBe(200);
    rmSync(join(t.home.tokens, 'editors', 'cursor'));
    await waitFor(async () => (await mcp(port, token)).status === 401, 5_000, 'deleted token refused');
  });
});
