import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Headless } from '../../../electron/headless/serve.ts';
import {
  ActionResultSchema,
  ApiEventSchema,
  ApprovalPreviewSchema,
  type ApiEvent,
  type ApprovalPreview,
} from '../../../shared/api.ts';
import { StatusReportSchema, type ServerStatus } from '../../../shared/status.ts';
import { useHeadless } from '../../helpers/headless.ts';
import { fixtureServer, waitFor } from '../../helpers/servers.ts';

// The control API as the CLI and the headless UI use it: real startHeadless, real HTTP with the
// control token; every state change is also watched on /api/events.

const setup = useHeadless();
let headless: Headless;
let base: string;
let control: string;
const events: ApiEvent[] = [];
const listening = new AbortController();

beforeAll(async () => {
  setup.t.writeServers({
    mcpServers: {
      worker: fixtureServer('env-echo-server.mjs'),
      suspect: fixtureServer('env-echo-server.mjs', 'OTHER'),
    },
  });
  headless = await setup.start({ editorSync: false });
  base = setup.base;
  control = headless.tokens.controlToken();
  await subscribe();
});

// Runs before the setup's teardown stops the core (after-hooks run last-registered first).
afterAll(() => {
  listening.abort();
});

/** Reads /api/events into `events` until the end of the file's tests. */
async function subscribe(): Promise<void> {
  const res = await fetch(`${base}/api/events`, {
    headers: { authorization: `Bearer ${control}`, accept: 'text/event-stream' },
    signal: listening.signal,
  });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
  const body = res.body;
  if (!body) throw new Error('/api/events has no body');
  void (async () => {
    const decoder = new TextDecoder();
    let buffer = '';
    for await (const chunk of body) {
      buffer += decoder.decode(chunk, { stream: true });
      let end: number;
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const frame = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const data = frame
          .split('\n')
          .filter((line) => line.startsWith('data: '))
          .map((line) => line.slice('data: '.length))
          .join('\n');
        if (data) events.push(ApiEventSchema.parse(JSON.parse(data)));
      }
    }
  })().catch(() => undefined); // aborted at the end
  await waitFor(() => events.some((e) => e.type === 'config'), 5_000, 'the first event (the current state)');
}

async function action(
  name: string,
  what: string,
  body?: unknown,
): Promise<{ status: number; body: unknown }> {
  const res = await fetch(`${base}/api/servers/${name}/${what}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${control}` },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: await res.json() };
}

/** What approving a server would allow, as the CLI shows it before approving. */
async function review(name: string): Promise<ApprovalPreview> {
  const res = await fetch(`${base}/api/servers/${name}/approval`, {
    headers: { authorization: `Bearer ${control}` },
  });
  expect(res.status).toBe(200);
  return ApprovalPreviewSchema.parse(await res.json());
}

async function statusOf(name: string): Promise<ServerStatus | undefined> {
  const res = await fetch(`${base}/api/status`, { headers: { authorization: `Bearer ${control}` } });
  return StatusReportSchema.parse(await res.json()).servers.find((s) => s.name === name);
}

function reached(name: string, state: ServerStatus['state']): Promise<ServerStatus> {
  return waitFor(
    async () => {
      const s = await statusOf(name);
      return s?.state === state ? s : undefined;
    },
    30_000,
    `${name} ${state}`,
  );
}

/** The first event after `from` that matches. */
function eventAfter<T extends ApiEvent>(
  from: number,
  match: (e: ApiEvent) => e is T,
  what: string,
): Promise<T> {
  return waitFor(() => events.slice(from).find(match), 10_000, what);
}

const statusEvent =
  (name: string, state: ServerStatus['state']) =>
  (e: ApiEvent): e is ApiEvent & { type: 'status' } =>
    e.type === 'status' && e.status.name === name && e.status.state === state;

describe('control API (/api with the control token, /api/events)', () => {
  it('approves and starts a server, with its status and a log line on /api/events', async () => {
    expect((await statusOf('worker'))?.state).toBe('pending-approval');
    const from = events.length;
    const approved = await action('worker', 'approve', { fingerprint: (await review('worker')).fingerprint });
    expect(approved.status).toBe(200);
    expect(ActionResultSchema.parse(approved.body).approval?.name).toBe('worker');
    await reached('worker', 'running');
    await eventAfter(from, statusEvent('worker', 'running'), 'worker running on /api/events');
    const log = await eventAfter(
      from,
      (e): e is ApiEvent & { type: 'log' } =>
        e.type === 'log' && e.line.server === 'worker' && e.line.text.includes('env-echo starting'),
      "worker's stderr line on /api/events",
    );
    expect(log.line.source).toBe('stderr');
  });

  it('stops, starts and restarts a server', async () => {
    const before = await reached('worker', 'running');

    let from = events.length;
    expect(await action('worker', 'stop')).toEqual({ status: 200, body: { ok: true } });
    expect((await statusOf('worker'))?.state).toBe('stopped');
    await eventAfter(from, statusEvent('worker', 'stopped'), 'worker stopped on /api/events');
    await eventAfter(
      from,
      (e): e is ApiEvent & { type: 'log' } =>
        e.type === 'log' &&
        e.line.server === 'worker' &&
        e.line.source === 'lifecycle' &&
        e.line.text === 'stopped',
      'the "stopped" lifecycle line on /api/events',
    );

    from = events.length;
    expect(await action('worker', 'start')).toEqual({ status: 200, body: { ok: true } });
    const started = await reached('worker', 'running');
    await eventAfter(from, statusEvent('worker', 'running'), 'worker running again on /api/events');
    expect(started.pid).not.toBe(before.pid);

    expect(await action('worker', 'restart')).toEqual({ status: 200, body: { ok: true } });
    const restarted = await waitFor(
      async () => {
        const s = await statusOf('worker');
        return s?.state === 'running' && s.pid !== started.pid ? s : undefined;
      },
      30_000,
      'worker running with a new pid',
    );
    expect(restarted.pid).toBeGreaterThan(0);
  });

  it('denies a pending server', async () => {
    expect((await statusOf('suspect'))?.state).toBe('pending-approval');
    const from = events.length;
    expect(await action('suspect', 'deny')).toEqual({ status: 200, body: { ok: true } });
    expect((await statusOf('suspect'))?.state).toBe('denied');
    await eventAfter(from, statusEvent('suspect', 'denied'), 'suspect denied on /api/events');
    // a denied server cannot be started until approved
    const start = await action('suspect', 'start');
    expect(start.status).toBe(400);
    expect(JSON.stringify(start.body)).toMatch(/approve/);
  });

  it('answers an unknown server or action with an error that names it', async () => {
    const unknown = await action('nobody', 'stop');
    expect(unknown.status).toBe(400);
    expect(JSON.stringify(unknown.body)).toContain('nobody');
    expect((await action('worker', 'explode')).status).toBe(404);
  });

  it('approves only the configuration that was shown: a change in between is refused with 409', async () => {
    const servers = (racer: unknown) => ({
      mcpServers: {
        worker: fixtureServer('env-echo-server.mjs'),
        suspect: fixtureServer('env-echo-server.mjs', 'OTHER'),
        racer,
      },
    });
    setup.t.writeServers(servers(fixtureServer('env-echo-server.mjs')));
    await waitFor(
      async () => (await statusOf('racer'))?.state === 'pending-approval',
      10_000,
      'racer pending',
    );
    const shown = await review('racer');
    expect(shown.lines).toEqual([
      expect.stringMatching(/^command: \S+ \S*env-echo-server\.mjs$/),
      expect.stringMatching(/^runs in: \S+\/data\/racer \(its own folder\)$/),
    ]);

    const noFingerprint = await action('racer', 'approve');
    expect(noFingerprint.status).toBe(400);
    expect(JSON.stringify(noFingerprint.body)).toContain(
      'needs the fingerprint of the configuration that was shown',
    );

    // servers.json changes after the person saw it, before their approval arrives.
    setup.t.writeServers(
      servers({ ...fixtureServer('env-echo-server.mjs'), env: { NODE_OPTIONS: '--require=/tmp/evil.js' } }),
    );
    await waitFor(
      async () => (await statusOf('racer'))?.fingerprint !== shown.fingerprint,
      10_000,
      'the edit picked up',
    );
    const refused = await action('racer', 'approve', { fingerprint: shown.fingerprint });
    expect(refused.status).toBe(409);
    expect(refused.body).toEqual({
      error:
        'server "racer" was not approved: its configuration changed since it was shown — review it again and approve what is shown now',
    });
    expect((await statusOf('racer'))?.state).toBe('pending-approval');
    expect(headless.core.state.approval('racer')).toBeUndefined();

    // What it is now, shown again, can be approved.
    const again = await review('racer');
    expect(again.lines).toContain('env NODE_OPTIONS=--require=/tmp/evil.js');
    expect((await action('racer', 'approve', { fingerprint: again.fingerprint })).status).toBe(200);
    expect(headless.core.state.approval('racer')?.fingerprint).toBe(again.fingerprint);
  });
});
