import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { OsKeychain } from '../../../electron/core/secrets/keychain.ts';
import { startHeadless, type Headless } from '../../../electron/headless/serve.ts';
import { editorToken, httpClient, textOf } from '../../helpers/bridge.ts';
import { defined, NODE, waitFor } from '../../helpers/servers.ts';
import { tempHome, type TempHome } from '../../helpers/temp-home.ts';

let t: TempHome | undefined;
let headless: Headless | undefined;
let remote: ChildProcess | undefined;
const keychain = new OsKeychain();

afterEach(async () => {
  await headless?.stop();
  remote?.kill();
  t?.cleanup();
  await keychain.delete('sb-test-remote').catch(() => false);
});

function startRemote(secret: string): Promise<number> {
  const script = fileURLToPath(new URL('../../fixtures/remote-server.mjs', import.meta.url));
  remote = spawn(NODE, [script, '0'], {
    env: { ...process.env, REMOTE_SECRET: secret },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const stdout = defined(remote.stdout, 'remote stdout');
  return new Promise((resolve) => {
    stdout.on('data', (d: Buffer) => {
      const m = /listening (\d+)/.exec(d.toString());
      if (m) resolve(Number(m[1]));
    });
  });
}

describe('bridge: remote (url) servers', () => {
  it('proxies a remote server with its credential from the keychain; the editor never sees it', async () => {
    const secret = `remote-${Math.random().toString(36).slice(2)}-credential`;
    const port = await startRemote(secret);
    const direct = await fetch(`http://127.0.0.1:${port}/mcp`, { method: 'POST', body: '{}' });
    expect(direct.status).toBe(401);

    await keychain.set('sb-test-remote', secret);
    t = tempHome();
    t.writeServers({
      mcpServers: {
        remote: {
          url: `http://127.0.0.1:${port}/mcp`,
          headers: { Authorization: 'Bearer ${secret:sb-test-remote}' },
        },
      },
    });
    headless = await startHeadless({ home: t.home, keychain, env: t.env, port: 0 });
    headless.core.approvals.approve('remote', headless.core.approvals.review('remote').fingerprint);
    await waitFor(
      () => headless?.core.status.report().servers[0]?.state === 'running',
      20_000,
      'remote running',
    );

    const client = await httpClient(
      `http://127.0.0.1:${headless.port}/mcp/remote`,
      editorToken(headless.tokens),
    );
    expect(textOf(await client.callTool({ name: 'echo', arguments: { message: 'hi' } }))).toBe('remote: hi');
    await client.close();
    await headless.stop();

    for (const entry of readdirSync(t.dir, { recursive: true, withFileTypes: true })) {
      if (!entry.isFile()) continue;
      const file = join(entry.parentPath, entry.name);
      expect(readFileSync(file, 'utf8'), file).not.toContain(secret);
    }
  });
});
