import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  findLocalEndpoint,
  maxSocketPathBytes,
  socketPathFor,
} from '../../../electron/core/bridge/local-endpoint.ts';
import { tempHome, type TempHome } from '../../helpers/temp-home.ts';

// What the stdio relay accepts as Switchboard before sending its token, with real files and sockets.

let t: TempHome;
const servers: Server[] = [];
beforeEach(() => {
  t = tempHome();
  mkdirSync(t.home.run, { recursive: true, mode: 0o700 });
});
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((resolve) => s.close(resolve))));
  t.cleanup();
});

async function listenAt(path: string): Promise<void> {
  const server = createServer();
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(path, resolve));
}

describe.runIf(process.platform !== 'win32')('findLocalEndpoint (macOS, Linux)', () => {
  it("accepts this user's socket in run/, and says nothing is there when it is absent", async () => {
    const path = join(t.home.run, 'bridge.sock');
    expect(findLocalEndpoint(t.home.run)).toEqual({
      ok: false,
      reason: 'absent',
      problem: `nothing is listening at ${path}`,
    });
    await listenAt(path);
    expect(findLocalEndpoint(t.home.run)).toEqual({ ok: true, path });
  });

  it('refuses a link to a socket, a plain file, and a socket of another uid', async () => {
    const elsewhere = join(t.dir, 'elsewhere.sock');
    await listenAt(elsewhere);
    const path = join(t.home.run, 'bridge.sock');
    symlinkSync(elsewhere, path);
    expect(findLocalEndpoint(t.home.run)).toMatchObject({ ok: false, reason: 'untrusted' });
    const other = join(t.dir, 'other-run');
    mkdirSync(other);
    writeFileSync(join(other, 'bridge.sock'), '');
    expect(findLocalEndpoint(other)).toMatchObject({ ok: false, reason: 'untrusted' });
    // As seen by a user whose uid is not the socket's owner:
    const uid = (process.getuid?.() ?? 0) + 1;
    const run2 = join(t.dir, 'run2');
    mkdirSync(run2);
    await listenAt(join(run2, 'bridge.sock'));
    expect(findLocalEndpoint(run2, { uid })).toMatchObject({
      ok: false,
      reason: 'untrusted',
      problem: expect.stringContaining('belongs to another user') as string,
    });
  });
});

describe('socket paths', () => {
  it('says when the home is too deep for a socket path, and what to do', () => {
    const deep = '/' + 'd'.repeat(120);
    expect(socketPathFor(deep, 'linux').problem).toContain(
      `longer than the ${maxSocketPathBytes('linux')} bytes a socket path may have — set SWITCHBOARD_HOME to a shorter folder`,
    );
    expect(findLocalEndpoint(deep, { platform: 'darwin' })).toMatchObject({ ok: false, reason: 'unusable' });
    expect(socketPathFor('/home/me/.config/switchboard/run', 'linux')).toEqual({
      path: '/home/me/.config/switchboard/run/bridge.sock',
    });
  });

  it('on Windows, takes the pipe a live Switchboard named in run/serve.json, and nothing else', () => {
    const serveJson = (info: object) => writeFileSync(join(t.home.run, 'serve.json'), JSON.stringify(info));
    const pipe = `\\\\.\\pipe\\switchboard-${'0a'.repeat(16)}`;
    serveJson({ pid: process.pid, port: 1, socket: pipe });
    expect(findLocalEndpoint(t.home.run, { platform: 'win32' })).toEqual({ ok: true, path: pipe });
    for (const info of [
      { pid: process.pid, port: 1, socket: '\\\\.\\pipe\\someone-else' },
      { pid: process.pid, port: 1 },
      { pid: 2 ** 22 + 12345, port: 1, socket: pipe }, // no such process: a stale file
    ]) {
      serveJson(info);
      expect(findLocalEndpoint(t.home.run, { platform: 'win32' })).toMatchObject({
        ok: false,
        reason: 'absent',
      });
    }
  });
});
