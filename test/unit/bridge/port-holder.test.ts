import { createServer, type Server } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { findPortHolder, portInUseError } from '../../../electron/core/bridge/port-holder.ts';

// Who holds a port, read from this machine's real /proc (Linux) and real lsof (what macOS uses), for
// listeners this test opens itself. Another user's listener is tested in
// test/integration/bridge/security.test.ts where the tests run as root.

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((resolve) => s.close(resolve))));
});

async function listen(host: string, port = 0): Promise<number> {
  const server = createServer();
  servers.push(server);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, resolve);
  });
  const address = server.address();
  return typeof address === 'object' && address ? address.port : 0;
}

const uid = process.getuid?.() ?? -1;

describe('findPortHolder', () => {
  it.runIf(process.platform === 'linux')(
    'finds the owner, pid and command of a listener on 127.0.0.1 or any address, from /proc',
    async () => {
      for (const host of ['127.0.0.1', '0.0.0.0']) {
        const port = await listen(host);
        const holder = await findPortHolder(port);
        expect(holder, host).toMatchObject({ uid, pid: process.pid });
        expect(holder?.command, host).toContain(process.execPath);
      }
    },
  );

  it.runIf(process.platform === 'linux')(
    'ignores a listener that does not keep 127.0.0.1 free (127.0.0.2), and a free port',
    async () => {
      const port = await listen('127.0.0.2');
      expect(await findPortHolder(port)).toBeUndefined();
      servers.splice(0).forEach((s) => s.close());
      expect(await findPortHolder(port)).toBeUndefined();
    },
  );

  it.runIf(process.platform !== 'win32')('reads lsof as on macOS', async () => {
    const port = await listen('127.0.0.1');
    const holder = await findPortHolder(port, { platform: 'darwin' });
    // (lsof names the command as the kernel does: the process title, here the test worker's)
    expect(holder).toMatchObject({ uid, pid: process.pid, command: expect.any(String) as string });
  });

  it('does not look on Windows', async () => {
    const port = await listen('127.0.0.1');
    expect(await findPortHolder(port, { platform: 'win32' })).toBeUndefined();
  });
});

describe('portInUseError', () => {
  it('names the port, whose process holds it and what to do, in one line', () => {
    const other = portInUseError(43117, { uid: 501, user: 'eve', pid: 77, command: 'nc -l 43117' }, 1000);
    expect(other.display).toBe(
      "port 43117 on 127.0.0.1 is held by another user's process (user eve, uid 501, pid 77: nc -l 43117), which would receive the tokens editors send to it — start Switchboard on another port (switchboard serve --port N) and find out why that user listens there",
    );
    const own = portInUseError(43117, { uid: 1000, pid: 12, command: 'node old/bin.mjs serve' }, 1000);
    expect(own.display).toBe(
      'port 43117 on 127.0.0.1 is already in use by another of your processes (pid 12: node old/bin.mjs serve) — probably an older Switchboard or another app; stop it, or start Switchboard on another port (switchboard serve --port N)',
    );
    expect(portInUseError(43117, undefined, 1000).display).toContain('switchboard serve --port N');
  });
});
