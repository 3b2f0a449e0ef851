import { chmodSync, mkdirSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Core } from '../../../electron/core/core.ts';
import { StaleApprovalError } from '../../../electron/core/errors.ts';
import { MemoryKeychain } from '../../../electron/core/secrets/keychain.ts';
import { CWD_NOT_ABSOLUTE } from '../../../shared/schema/servers.ts';
import { validateServerConfig } from '../../../shared/server-validation.ts';
import type { ServerStatus } from '../../../shared/status.ts';
import { fixtureServer, NODE, waitFor } from '../../helpers/servers.ts';
import { tempHome, type TempHome } from '../../helpers/temp-home.ts';

// What an approval covers, with the real core on real files: it is bound to the config that was
// shown, it pins the real program behind a symlink, and a cwd is absolute. (MemoryKeychain: nothing
// here reads a secret.)

let t: TempHome;
let core: Core;

beforeEach(() => {
  t = tempHome();
});

afterEach(async () => {
  await core?.lifecycle.shutdown();
  t.cleanup();
});

function startCore(): Promise<void> {
  core = new Core({ home: t.home, keychain: new MemoryKeychain(), env: t.env, watch: true });
  return core.lifecycle.start();
}

function statusOf(name: string): ServerStatus | undefined {
  return core.status.report().servers.find((s) => s.name === name);
}

function reached(name: string, state: ServerStatus['state']): Promise<ServerStatus> {
  return waitFor(
    () => (statusOf(name)?.state === state ? statusOf(name) : undefined),
    45_000,
    `${name} ${state} (last: ${JSON.stringify(statusOf(name))})`,
  );
}

describe('an approval is bound to what was shown', () => {
  it('refuses an approval when servers.json changed between showing and approving', async () => {
    const echo = fixtureServer('env-echo-server.mjs');
    t.writeServers({ mcpServers: { echo } });
    await startCore();
    const shown = core.approvals.review('echo');
    expect(shown).toMatchObject({ name: 'echo', state: 'pending-approval', references: [] });

    t.writeServers({
      mcpServers: { echo: { ...echo, env: { NODE_OPTIONS: '--require=/tmp/evil.js' } } },
    });
    core.lifecycle.reload();
    expect(() => core.approvals.approve('echo', shown.fingerprint)).toThrow(StaleApprovalError);
    expect(() => core.approvals.approve('echo', shown.fingerprint)).toThrow(
      'server "echo" was not approved: its configuration changed since it was shown',
    );
    expect(statusOf('echo')?.state).toBe('pending-approval');
    expect(core.state.approval('echo')).toBeUndefined();

    // Shown again, the new config can be approved, and runs.
    const again = core.approvals.review('echo');
    expect(again.lines).toContain('env NODE_OPTIONS=--require=/tmp/evil.js');
    core.approvals.approve('echo', again.fingerprint);
    expect(core.state.approval('echo')?.fingerprint).toBe(again.fingerprint);
  });

  it('flags every secret and env variable the config passes on, and where to', async () => {
    t.writeServers({
      mcpServers: {
        docs: {
          url: 'https://docs.example.com/mcp',
          headers: { Authorization: 'Bearer ${secret:docs-token}', 'X-User': '${env:USER}' },
        },
      },
    });
    await startCore();
    expect(core.approvals.review('docs').references).toEqual([
      'sends your keychain secret "docs-token" in header Authorization to https://docs.example.com/mcp',
      'sends your environment variable USER in header X-User to https://docs.example.com/mcp',
    ]);
  });
});

describe('the fingerprint pins what runs', () => {
  /** Two different launcher scripts for the same MCP server, and a symlink pointing at the first. */
  function launchers(): { link: string; a: string; b: string } {
    const dir = join(t.dir, 'tools');
    mkdirSync(join(dir, 'bin'), { recursive: true });
    const server = fixtureServer('env-echo-server.mjs').args[0] ?? '';
    const script = (name: string) => {
      const file = join(dir, name);
      writeFileSync(file, `#!/bin/sh\n# ${name}\nexec "${NODE}" "${server}" "$@"\n`);
      chmodSync(file, 0o755);
      return realpathSync(file);
    };
    const a = script('server-a.sh');
    const b = script('server-b.sh');
    const link = join(dir, 'bin', 'server');
    symlinkSync(a, link);
    return { link, a, b };
  }

  it('shows the real file behind a symlinked command, and asks again when the link is retargeted', async () => {
    const { link, a, b } = launchers();
    // The launchers run the checkout's Node and fixture, which the sandbox hides when the checkout
    // is under /tmp or a home folder (a private clone in CI): declared, as a person would.
    const checkout = fileURLToPath(new URL('../../..', import.meta.url));
    t.writeServers({ mcpServers: { linked: { command: link, sandbox: { read: [checkout] } } } });
    const sandboxLine = `sandbox: ${JSON.stringify({ read: [checkout] })}`;
    await startCore();
    const shown = core.approvals.review('linked');
    const runsIn = `runs in: ${join(t.home.data, 'linked')} (its own folder)`;
    expect(shown.lines).toEqual([`command: ${link}`, `real file: ${a}`, runsIn, sandboxLine]);
    core.approvals.approve('linked', shown.fingerprint);
    await reached('linked', 'running');

    // Someone points the symlink at another program; the server restarts (a crash, a restart).
    rmSync(link);
    symlinkSync(b, link);
    await core.lifecycle.restartServer('linked').catch(() => undefined);
    await reached('linked', 'pending-approval');
    expect(core.approvals.review('linked').lines).toEqual([
      `command: ${link}`,
      `real file: ${b}`,
      runsIn,
      sandboxLine,
    ]);
    expect(core.state.approval('linked')?.fingerprint).toBe(shown.fingerprint);

    // A fresh start (the next `switchboard serve`) asks too, and never runs it.
    await core.lifecycle.shutdown();
    await startCore();
    await new Promise((r) => setTimeout(r, 300));
    expect(statusOf('linked')).toMatchObject({ state: 'pending-approval', pid: null });
  });

  it('refuses a relative cwd at the field, in the words the UI uses too', async () => {
    t.writeServers({ mcpServers: { rel: { command: 'node', cwd: 'projects/x' } } });
    await startCore();
    const error = core.status.report().configError ?? '';
    expect(error).toContain('server "rel", field "cwd"');
    expect(error).toContain(CWD_NOT_ABSOLUTE);
    expect(core.status.report().servers).toEqual([]);
    expect(validateServerConfig({ command: 'node', cwd: '~/x' })).toEqual({
      ok: false,
      issues: [{ path: ['cwd'], message: CWD_NOT_ABSOLUTE }],
    });
    expect(validateServerConfig({ command: 'node', cwd: '/srv/x' }).ok).toBe(true);
  });
});
