import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { existsSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import type { Headless } from '../../../electron/headless/serve.ts';
import type { ServerStatus } from '../../../shared/status.ts';
import { textOf } from '../../helpers/bridge.ts';
import { useHeadless } from '../../helpers/headless.ts';
import { ManualClock } from '../../helpers/manual-clock.ts';
import { defined, fixtureServer, isAlive, waitFor } from '../../helpers/servers.ts';

// Lazy servers: a server runs once after approval to learn its lists, which the home keeps; editors'
// list requests are answered from them; after its idle timeout it stops (`idle`), and the next call
// starts it again. Real servers and bridge; idle and backoff timers on a ManualClock.

const setup = useHeadless({ perTest: true });
let toolsFile: string;

beforeEach(() => {
  toolsFile = join(setup.t.dir, 'tools.json');
  writeFileSync(toolsFile, JSON.stringify([{ name: 'search', description: 'Searches' }]));
});

async function serve(servers: Record<string, unknown>, clock?: ManualClock): Promise<Headless> {
  setup.t.writeServers({ mcpServers: servers });
  return setup.start({ editorSync: false, ...(clock ? { clock } : {}) });
}

function statusOf(h: Headless, name: string): ServerStatus | undefined {
  return h.core.status.report().servers.find((s) => s.name === name);
}

function reached(h: Headless, name: string, state: ServerStatus['state']): Promise<ServerStatus> {
  return waitFor(
    () => {
      const s = statusOf(h, name);
      return s?.state === state && (state !== 'running' || s.toolCount !== null) ? s : undefined;
    },
    30_000,
    `${name} ${state} (is ${statusOf(h, name)?.state})`,
  );
}

/** How many times the server's process was spawned by this Switchboard (its log says each). */
function spawns(h: Headless, name: string): number {
  return h.core.logs.lines(name, 10_000).filter((l) => /^spawned pid \d+/.test(l.text)).length;
}

const toolNames = async (client: Client) => (await client.listTools()).tools.map((tool) => tool.name).sort();

describe('lazy servers', () => {
  it('stops a server after its idle timeout, lists its tools without starting it, and starts it again for the next call', async () => {
    const clock = new ManualClock();
    const h = await serve({ lazy: { ...fixtureServer('env-echo-server.mjs'), idleTimeout: 120 } }, clock);
    h.core.approvals.approve('lazy', h.core.approvals.review('lazy').fingerprint);
    const first = await reached(h, 'lazy', 'running');
    const pid = defined(first.pid, 'pid');
    const direct = await setup.connect('/mcp/lazy');
    const aggregate = await setup.connect('/mcp');
    expect(textOf(await direct.callTool({ name: 'sleep', arguments: { ms: 1 } }))).toBe('slept 1');

    // Idle time counts from the last answer: not a moment before it is up...
    clock.advance(119_000);
    await new Promise((r) => setTimeout(r, 200));
    expect(statusOf(h, 'lazy')?.state).toBe('running');
    // ...and then the server is stopped, cleanly, and says it is idle (not stopped: that is a person's).
    clock.advance(1_000);
    const idle = await reached(h, 'lazy', 'idle');
    // env-echo-server.mjs: read-env, environment, sleep, add-tool
    expect(idle).toMatchObject({ pid: null, toolCount: 4 });
    await waitFor(() => !isAlive(pid), 10_000, 'the process gone');
    expect(h.core.logs.lines('lazy').map((l) => l.text)).toContain(
      'no request for 2 min: stopping until the next one (idle)',
    );
    // An idle server holds nothing of its last run: no client, no connection (memory, at 100 servers).
    const runner = defined(h.core.lifecycle.supervisor()?.runner('lazy'), 'runner');
    expect(runner.client).toBeNull();
    expect(runner.link).toBeNull();

    // Lists come from its last run: nothing starts.
    expect(await toolNames(direct)).toEqual(['add-tool', 'environment', 'read-env', 'sleep']);
    expect(await toolNames(aggregate)).toEqual([
      'lazy__add-tool',
      'lazy__environment',
      'lazy__read-env',
      'lazy__sleep',
    ]);
    const late = await setup.connect('/mcp/lazy'); // a new editor's initialize, too
    expect(late.getServerVersion()?.name).toBe('env-echo');
    await new Promise((r) => setTimeout(r, 300));
    expect(statusOf(h, 'lazy')?.state).toBe('idle');
    expect(spawns(h, 'lazy')).toBe(1);

    // The first call starts it, and is answered once it is up; a wake is not a restart.
    expect(textOf(await aggregate.callTool({ name: 'lazy__sleep', arguments: { ms: 2 } }))).toBe('slept 2');
    const woke = await reached(h, 'lazy', 'running');
    expect(spawns(h, 'lazy')).toBe(2);
    expect(woke.restarts).toBe(0);
    expect(runner.client).not.toBeNull();
    expect(runner.link?.closed).toBe(false);
  });

  it('counts the idle time from the last call, also from calls made while the idle time runs', async () => {
    const clock = new ManualClock();
    const h = await serve({ lazy: { ...fixtureServer('env-echo-server.mjs'), idleTimeout: 120 } }, clock);
    h.core.approvals.approve('lazy', h.core.approvals.review('lazy').fingerprint);
    await reached(h, 'lazy', 'running');
    const direct = await setup.connect('/mcp/lazy');
    // 100 s into the 2 minutes a call comes (and another 10 s later): the 2 minutes start again then.
    clock.advance(100_000);
    expect(textOf(await direct.callTool({ name: 'sleep', arguments: { ms: 1 } }))).toBe('slept 1');
    clock.advance(10_000);
    expect(textOf(await direct.callTool({ name: 'sleep', arguments: { ms: 1 } }))).toBe('slept 1');
    // Long past 2 minutes since the server started and since the first call: still in use.
    clock.advance(119_000);
    await new Promise((r) => setTimeout(r, 200));
    expect(statusOf(h, 'lazy')?.state).toBe('running');
    // 2 minutes after the last call it goes idle.
    clock.advance(1_000);
    await reached(h, 'lazy', 'idle');
    expect(spawns(h, 'lazy')).toBe(1);
  });
  it('starts an idle server once for two concurrent first calls', async () => {
    const clock = new ManualClock();
    const h = await serve({ lazy: { ...fixtureServer('env-echo-server.mjs'), idleTimeout: 60 } }, clock);
    h.core.approvals.approve('lazy', h.core.approvals.review('lazy').fingerprint);
    await reached(h, 'lazy', 'running');
    clock.advance(60_000);
    await reached(h, 'lazy', 'idle');
    const [a, b] = await Promise.all([setup.connect('/mcp/lazy'), setup.connect('/mcp')]);

    const answers = await Promise.all([
      a.callTool({ name: 'sleep', arguments: { ms: 5 } }),
      b.callTool({ name: 'lazy__sleep', arguments: { ms: 6 } }),
    ]);
    expect(answers.map(textOf)).toEqual(['slept 5', 'slept 6']);
    expect(spawns(h, 'lazy')).toBe(2); // the first run, and one start for both calls
  });

  it('gives a call an error when the server crashes on its cold start, and backs off as usual', async () => {
    const clock = new ManualClock();
    const marker = join(setup.t.dir, 'crash');
    const h = await serve(
      {
        shifty: { ...fixtureServer('shifty-server.mjs', toolsFile, '--crash-if', marker), idleTimeout: 60 },
      },
      clock,
    );
    h.core.approvals.approve('shifty', h.core.approvals.review('shifty').fingerprint);
    await reached(h, 'shifty', 'running');
    const client = await setup.connect('/mcp/shifty');
    clock.advance(60_000);
    await reached(h, 'shifty', 'idle');

    writeFileSync(marker, '');
    await expect(client.callTool({ name: 'search', arguments: {} })).rejects.toThrow(
      /MCP server "shifty" crashed \(exited with code 1 before initialize answered: shifty: refusing to start while .*crash exists\) and Switchboard restarts it at /,
    );
    const backoff = await reached(h, 'shifty', 'backoff');
    const delay = defined(backoff.nextRetryAt, 'next retry') - clock.now();
    expect(delay).toBeGreaterThanOrEqual(800);
    expect(delay).toBeLessThanOrEqual(1_200);

    // The usual schedule: the retry comes at its time, crashes again, and the delay doubles.
    clock.advance(delay);
    await waitFor(() => spawns(h, 'shifty') === 3, 10_000, 'the retry');
    const again = await reached(h, 'shifty', 'backoff');
    const second = defined(again.nextRetryAt, 'next retry') - clock.now();
    expect(second).toBeGreaterThanOrEqual(1_600);
    expect(second).toBeLessThanOrEqual(2_400);

    // Once it can start, the retry brings it back, and calls work.
    rmSync(marker);
    clock.advance(second);
    await reached(h, 'shifty', 'running');
    expect(textOf(await client.callTool({ name: 'search', arguments: {} }))).toBe('search answered');
  });

  it('keeps the lists in the home: after a restart of Switchboard the server is idle and answers lists without starting', async () => {
    let h = await serve({ lazy: fixtureServer('env-echo-server.mjs') });
    h.core.approvals.approve('lazy', h.core.approvals.review('lazy').fingerprint);
    const fingerprint = (await reached(h, 'lazy', 'running')).fingerprint;
    await setup.stop();
    expect(readdirSync(join(setup.t.home.cache, 'lists'))).toEqual([`lazy@${fingerprint}.json`]);

    h = await serve({ lazy: fixtureServer('env-echo-server.mjs') });
    const idle = await reached(h, 'lazy', 'idle');
    expect(idle.toolCount).toBe(4);
    // Its log starts with the history of the first run (that run's one start).
    const earlier = spawns(h, 'lazy');
    expect(earlier).toBe(1);
    const direct = await setup.connect('/mcp/lazy');
    expect(await toolNames(direct)).toEqual(['add-tool', 'environment', 'read-env', 'sleep']);
    expect(await toolNames(await setup.connect('/mcp'))).toEqual([
      'lazy__add-tool',
      'lazy__environment',
      'lazy__read-env',
      'lazy__sleep',
    ]);
    expect(spawns(h, 'lazy')).toBe(earlier);
    expect(statusOf(h, 'lazy')?.state).toBe('idle');

    // A changed config never serves the old lists: it waits for approval, then runs to list anew.
    setup.t.writeServers({ mcpServers: { lazy: fixtureServer('mini-server.mjs') } });
    h.core.lifecycle.reload();
    await reached(h, 'lazy', 'pending-approval');
    await expect(direct.listTools()).rejects.toThrow(/waiting for your approval/);
    h.core.approvals.approve('lazy', h.core.approvals.review('lazy').fingerprint);
    const fresh = await reached(h, 'lazy', 'running');
    const names = await toolNames(await setup.connect('/mcp/lazy'));
    expect(names).not.toContain('read-env');
    expect(names.length).toBe(fresh.toolCount);
    await waitFor(
      () => existsSync(join(setup.t.home.cache, 'lists', `lazy@${fresh.fingerprint}.json`)),
      10_000,
      'the new lists saved',
    );
    expect(readdirSync(join(setup.t.home.cache, 'lists'))).toEqual([`lazy@${fresh.fingerprint}.json`]);
  });

  it('follows the idle timeout in Settings for servers that set none, and 0 keeps them running', async () => {
    const clock = new ManualClock();
    const h = await serve(
      {
        plain: fixtureServer('env-echo-server.mjs'),
        always: { ...fixtureServer('env-echo-server.mjs'), idleTimeout: 0 },
      },
      clock,
    );
    for (const name of ['plain', 'always'])
      h.core.approvals.approve(name, h.core.approvals.review(name).fingerprint);
    await reached(h, 'plain', 'running');
    await reached(h, 'always', 'running');
    h.core.lifecycle.setIdleTimeoutDefault(30);
    await new Promise((r) => setTimeout(r, 100)); // the supervisor applies it (its queue)
    clock.advance(30_000);
    await reached(h, 'plain', 'idle');
    clock.advance(3_600_000);
    await new Promise((r) => setTimeout(r, 200));
    expect(statusOf(h, 'always')?.state).toBe('running');

    // 0 in Settings: the idle one starts again and stays up.
    h.core.lifecycle.setIdleTimeoutDefault(0);
    await reached(h, 'plain', 'running');
    clock.advance(3_600_000);
    await new Promise((r) => setTimeout(r, 200));
    expect(statusOf(h, 'plain')?.state).toBe('running');
  });
});
