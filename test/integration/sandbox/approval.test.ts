import { mkdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../../helpers/cli.ts';
import { fixtureServer } from '../../helpers/servers.ts';
import { sandboxUnavailable } from '../../helpers/sandbox.ts';
import { tempHome, type TempHome } from '../../helpers/temp-home.ts';

// What `switchboard approve` and `status` say of a server's sandbox, with and without bubblewrap and
// socat on the machine (PATH decides what Switchboard finds; the server's command is absolute).
const skip = sandboxUnavailable() !== undefined;

let t: TempHome;
beforeEach(() => {
  t = tempHome();
  t.writeServers({
    mcpServers: { notes: { ...fixtureServer('mini-server.mjs'), sandbox: { write: ['~/notes'] } } },
  });
});
afterEach(() => t.cleanup());

/** A PATH with only these programs of this machine's. */
function pathWith(...programs: string[]): string {
  const dir = join(t.dir, `path-${programs.join('-') || 'empty'}`);
  mkdirSync(dir, { recursive: true });
  for (const p of programs) symlinkSync(`/usr/bin/${p}`, join(dir, p));
  return dir;
}

const fingerprintIn = (out: string) => /Fingerprint: ([0-9a-f]{64})/.exec(out)?.[1] ?? '';

describe.skipIf(skip)('the sandbox on the approval', () => {
  it('says what the server may reach, in words, and a change of its policy asks again', async () => {
    const shown = await runCli(['approve', 'notes'], t.env);
    expect(shown.stdout).toContain(
      '  sandbox: {"write":["~/notes"]}\nIn its sandbox it:\n  reads and writes only: ',
    );
    expect(shown.stdout).toContain('~/notes, a private temp folder\n');
    expect(shown.stdout).toContain(
      "  network: any host on the internet over HTTP(S), through Switchboard's proxy; nothing on this computer\n",
    );
    // and who really reaches it: only what follows HTTPS_PROXY (issue 33)
    expect(shown.stdout).toContain(
      "  reaches the network only through that proxy (HTTPS_PROXY): Node 18+ (fetch, http, https, axios), Python's urllib, requests, httpx and aiohttp, Go, Bun and Deno use it; a program that ignores it (database drivers, SSH and other raw TCP) reaches nothing\n",
    );
    expect(
      (await runCli(['approve', 'notes', '--fingerprint', fingerprintIn(shown.stdout)], t.env)).code,
    ).toBe(0);
    const status = await runCli(['status'], t.env);
    // (a checkout under /tmp, CI's, is private there: the fixture's project is then readable too)
    expect(status.stdout).toMatch(
      /\nSandbox:\n {2}notes: sandboxed; writes its own folder, ~\/notes; (?:reads [^;]+; )?network: any host[^\n]*; only programs that use HTTPS_PROXY reach it\n/,
    );
    t.writeServers({
      mcpServers: { notes: { ...fixtureServer('mini-server.mjs'), sandbox: { write: ['~'] } } },
    });
    expect((await runCli(['status'], t.env)).stdout).toMatch(/notes\s+pending-approval/);
  });

  it('says "NOT sandboxed", and how to install bubblewrap, where it is missing; getting it asks again', async () => {
    const without = { ...t.env, PATH: pathWith() };
    const shown = await runCli(['approve', 'notes'], without);
    expect(shown.stdout).toContain(
      'It is not sandboxed:\n  ! NOT sandboxed: it can read and change everything you can',
    );
    expect(shown.stdout).toContain(
      'bubblewrap is not installed — install bubblewrap: sudo apt install bubblewrap (Debian, Ubuntu)',
    );
    expect(shown.stdout).toContain('  not enforced here: no-sandbox\n');
    expect(
      (await runCli(['approve', 'notes', '--fingerprint', fingerprintIn(shown.stdout)], without)).code,
    ).toBe(0);
    expect((await runCli(['status'], without)).stdout).toMatch(/notes\s+stopped/);
    // bubblewrap installed since: what runs changes (it is sandboxed now), so it is asked again
    expect((await runCli(['status'], t.env)).stdout).toMatch(/notes\s+pending-approval/);
  });

  it('says the network is not filtered, and how to install socat, where socat is missing', async () => {
    const shown = await runCli(['approve', 'notes'], { ...t.env, PATH: pathWith('bwrap') });
    expect(shown.stdout).toContain(
      "  network: NOT filtered — socat is not installed — install socat: sudo apt install socat (Debian, Ubuntu), sudo dnf install socat (Fedora), sudo pacman -S socat (Arch): it can reach any host and this computer's own services\n",
    );
    expect(shown.stdout).toContain('  not enforced here: network-unfiltered\n');
  });
});
