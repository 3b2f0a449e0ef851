import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Core } from '../../../electron/core/core.ts';
import { serverDataDir } from '../../../electron/core/home.ts';
import { MemoryKeychain } from '../../../electron/core/secrets/keychain.ts';
import { everythingServer, fixtureServer, NODE, waitFor } from '../../helpers/servers.ts';
import { sandboxUnavailable } from '../../helpers/sandbox.ts';
import { tempHome, type TempHome } from '../../helpers/temp-home.ts';

// Real MCP servers from npm, each sandboxed by default, each answering a call; and the sandbox
// composed with lazy start, restart backoff, isolated processes and the process-group stop.
const require = createRequire(import.meta.url);
const skip = sandboxUnavailable() !== undefined;

let t: TempHome;
let core: Core | undefined;
let keychain: MemoryKeychain;
const children: ChildProcess[] = [];

beforeEach(() => {
  t = tempHome();
  keychain = new MemoryKeychain();
});
afterEach(async () => {
  await core?.lifecycle.shutdown();
  core = undefined;
  for (const child of children.splice(0)) child.kill();
  t.cleanup();
});

async function started(servers: Record<string, unknown>, options: { idle?: number } = {}): Promise<Core> {
  t.writeServers({ mcpServers: servers });
  const c = new Core({ home: t.home, keychain, env: t.env });
  core = c;
  await c.lifecycle.start();
  if (options.idle !== undefined) c.lifecycle.setIdleTimeoutDefault(options.idle);
  for (const name of Object.keys(servers)) c.approvals.approve(name, c.approvals.review(name).fingerprint);
  return c;
}

async function running(c: Core, name: string): Promise<Client> {
  await waitFor(
    () => c.status.report().servers.find((s) => s.name === name)?.state === 'running',
    30_000,
    `${name} running`,
  );
  const client = c.lifecycle.supervisor()?.runner(name)?.client;
  if (!client) throw new Error(`${name} has no client`);
  return client;
}

function text(result: unknown): string {
  return ((result as { content: { text?: string }[] }).content ?? []).map((c) => c.text ?? '').join('\n');
}

/** Processes on this machine whose command line contains `marker` (the sandbox's own and its children). */
function processesWith(marker: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      if (stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z')) continue;
      if (readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes(marker)) pids.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return pids;
}

/** Every process below pid on this machine, by parent links in /proc. */
function descendants(pid: number): number[] {
  const parent = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      parent.set(Number(entry), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      // gone meanwhile
    }
  }
  const out: number[] = [];
  const walk = (p: number) => {
    for (const [child, of] of parent) {
      if (of !== p) continue;
      out.push(child);
      walk(child);
    }
  };
  walk(pid);
  return out;
}

function commandOf(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
  } catch {
    return '';
  }
}

function isRunning(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return !stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z');
  } catch {
    return false;
  }
}

describe.skipIf(skip)('real servers from npm, sandboxed', () => {
  it('server-filesystem works in the folder it was given, which the approval offers as its access', async () => {
    const notes = join(t.env.HOME ?? '', 'notes');
    mkdirSync(notes, { recursive: true });
    writeFileSync(join(notes, 'todo.md'), 'buy milk\n');
    const c = await started({
      fs: {
        command: NODE,
        args: [require.resolve('@modelcontextprotocol/server-filesystem/dist/index.js'), notes],
      },
    });
    expect(c.approvals.review('fs').access[0]).toBe(
      `reads and writes only: ${serverDataDir(t.home, 'fs').replace(t.env.HOME ?? '', '~')} (its own folder), ~/notes (given in its arguments), a private temp folder`,
    );
    const client = await running(c, 'fs');
    expect(
      text(await client.callTool({ name: 'read_text_file', arguments: { path: join(notes, 'todo.md') } })),
    ).toBe('buy milk\n');
    await client.callTool({
      name: 'write_file',
      arguments: { path: join(notes, 'new.md'), content: 'from the sandbox' },
    });
    expect(readFileSync(join(notes, 'new.md'), 'utf8')).toBe('from the sandbox');
  });

  it('server-memory keeps its data file in its own folder', async () => {
    const c = await started({
      memory: { command: NODE, args: [require.resolve('@modelcontextprotocol/server-memory/dist/index.js')] },
    });
    expect(c.approvals.review('memory').access).toContainEqual(
      expect.stringMatching(
        /^gets MEMORY_FILE_PATH=.*\/data\/memory\/memory\.jsonl so its data stays in its own folder$/,
      ),
    );
    const client = await running(c, 'memory');
    await client.callTool({
      name: 'create_entities',
      arguments: {
        entities: [{ name: 'Ada', entityType: 'person', observations: ['wrote the first program'] }],
      },
    });
    const file = join(serverDataDir(t.home, 'memory'), 'memory.jsonl');
    await waitFor(() => existsSync(file), 5_000, 'memory.jsonl');
    expect(readFileSync(file, 'utf8')).toContain('wrote the first program');
    expect(text(await client.callTool({ name: 'read_graph', arguments: {} }))).toContain('Ada');
  });

  it('server-everything answers a call', async () => {
    const client = await running(await started({ everything: everythingServer() }), 'everything');
    expect(text(await client.callTool({ name: 'echo', arguments: { message: 'hi' } }))).toContain('hi');
  });

  it('a remote API (supergateway to a local stand-in) is reached through the network list, and refused without it', async () => {
    const remote = spawn(
      NODE,
      [fileURLToPath(new URL('../../fixtures/remote-server.mjs', import.meta.url)), '0'],
      {
        env: { ...process.env, REMOTE_SECRET: 'remote-secret-1' },
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    children.push(remote);
    const port = await new Promise<number>((resolve) =>
      remote.stdout?.on('data', (d: Buffer) => {
        const m = /listening (\d+)/.exec(d.toString());
        if (m) resolve(Number(m[1]));
      }),
    );
    await keychain.set('remote', 'remote-secret-1');
    const gateway = (network?: string[]) => ({
      command: NODE,
      args: [
        require.resolve('supergateway/dist/index.js'),
        '--streamableHttp',
        `http://localhost:${port}/mcp`,
        '--oauth2Bearer',
        '${secret:remote}',
      ],
      ...(network ? { sandbox: { network } } : {}),
    });
    const c = await started({ listed: gateway([`localhost:${port}`]), unlisted: gateway() });
    expect(c.approvals.review('listed').access).toContain(
      `network: only localhost:${port} (through Switchboard's proxy)`,
    );
    const client = await running(c, 'listed');
    expect(text(await client.callTool({ name: 'echo', arguments: { message: 'through the sandbox' } }))).toBe(
      'remote: through the sandbox',
    );
    // Not listed: this computer's services are out of reach, and status says so in one line.
    await waitFor(
      () =>
        c.status
          .report()
          .servers.find((s) => s.name === 'unlisted')
          ?.sandboxRefused?.includes(`localhost:${port}`),
      30_000,
      'the refusal in status',
    );
    expect(c.status.report().servers.find((s) => s.name === 'unlisted')?.sandboxRefused).toBe(
      `sandbox refused connecting to localhost:${port} on this computer: add "localhost:${port}" to sandbox.network`,
    );
  });
});

describe.skipIf(skip)('the sandbox composes', () => {
  it('stopping reaches every process in the sandbox: bubblewrap, the relay, the server and its grandchild', async () => {
    const marker = `sandbox-stop-${process.pid}-${Date.now()}`;
    const c = await started({
      a: {
        ...fixtureServer('mini-server.mjs', '--grandchild', `--tag=${marker}`),
        sandbox: { network: ['example.com'] },
      },
    });
    await running(c, 'a');
    const bwrap = c.status.report().servers[0]?.pid ?? 0;
    // bwrap, its init, the server (sh exec'd it), socat relaying the proxy, the server's grandchild
    const tree = descendants(bwrap);
    expect(tree.length).toBeGreaterThanOrEqual(4);
    expect(tree.map(commandOf)).toEqual(
      expect.arrayContaining([expect.stringMatching(/^\/usr\/bin\/socat /)]),
    );
    expect(processesWith(marker).length).toBeGreaterThanOrEqual(3);
    await c.lifecycle.stopServer('a');
    expect([bwrap, ...tree].filter(isRunning)).toEqual([]);
  });

  it('a crashing sandboxed server backs off with its own words; a lazy one goes idle and wakes for a call', async () => {
    const c = await started(
      { crash: fixtureServer('crash-on-start.mjs'), lazy: { ...everythingServer(), idleTimeout: 1 } },
      {},
    );
    await waitFor(
      () => c.status.report().servers.find((s) => s.name === 'crash')?.state === 'backoff',
      30_000,
      'backoff',
    );
    expect(c.status.report().servers.find((s) => s.name === 'crash')?.lastError).toBe(
      'exited with code 1 before initialize answered: fatal: crash-on-start fixture refuses to start',
    );
    await running(c, 'lazy');
    await waitFor(
      () => c.status.report().servers.find((s) => s.name === 'lazy')?.state === 'idle',
      30_000,
      'idle',
    );
    c.lifecycle.supervisor()?.runner('lazy')?.wake();
    const client = await running(c, 'lazy');
    expect(text(await client.callTool({ name: 'echo', arguments: { message: 'awake' } }))).toContain('awake');
  });

  it('an isolated server gets a process (and a sandbox) per session', async () => {
    const c = await started({ solo: { ...fixtureServer('probe-server.mjs', 'solo'), isolated: true } });
    await running(c, 'solo');
    const peer = { attach: () => ({ receive: () => false, disconnected: () => {} }) };
    const supervisor = c.lifecycle.supervisor();
    const one = supervisor?.isolate('solo', { tag: 'one', capabilities: {}, peer });
    const two = supervisor?.isolate('solo', { tag: 'two', capabilities: {}, peer });
    await waitFor(() => one?.state === 'running' && two?.state === 'running', 30_000, 'both running');
    const pids = new Set([c.status.report().servers[0]?.pid, one?.status.pid, two?.status.pid]);
    expect(pids.size).toBe(3);
    for (const runner of [one, two]) {
      expect(text(await runner?.client?.callTool({ name: 'whoami', arguments: {} }))).toContain(
        '"client":"switchboard"',
      );
      if (runner) await supervisor?.release(runner);
    }
  });
});
