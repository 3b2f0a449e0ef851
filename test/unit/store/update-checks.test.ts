import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  CHECK_EVERY_MS,
  FIRST_CHECK_DELAY_MS,
  RETRY_AFTER_MS,
  UpdateChecks,
  type UpdateChecksDeps,
} from '../../../electron/core/store/update-checks.ts';
import type { OutdatedEntry } from '../../../shared/store.ts';
import { ManualClock } from '../../helpers/manual-clock.ts';

// When Switchboard checks approved packages for newer releases by itself, and what it keeps. The
// registry's side (a real npm against a real local registry) is test/integration/store; here the
// check's answer is given, so the schedule can be driven by a clock.

const update: OutdatedEntry = {
  server: 'pkg',
  kind: 'npm',
  package: 'sb-store-pkg',
  current: '1.0.0',
  wanted: '1.1.0',
  latest: '1.1.0',
  changes: ['sb-store-pkg 1.0.0 → 1.1.0'],
  error: null,
};

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'sb-update-checks-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function checks(clock: ManualClock, answer: () => OutdatedEntry[], extra: Partial<UpdateChecksDeps> = {}) {
  const calls: number[] = [];
  let lock = 'lock-1';
  const deps: UpdateChecksDeps = {
    clock,
    file: join(dir, 'updates.json'),
    outdated: () => {
      calls.push(clock.now());
      return Promise.resolve(answer());
    },
    pinnedLock: () => lock,
    packages: () => 1,
    daily: () => true,
    changed: () => undefined,
    ...extra,
  };
  return { checks: new UpdateChecks(deps), calls, setLock: (l: string) => (lock = l) };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('checks for updates', () => {
  it('checks once a day while started, never in its first ten minutes', async () => {
    const clock = new ManualClock();
    const { checks: c, calls } = checks(clock, () => [update]);
    c.start();
    expect(c.report().nextCheckAt).toBe(clock.now() + FIRST_CHECK_DELAY_MS);
    clock.advance(FIRST_CHECK_DELAY_MS - 1);
    expect(calls).toHaveLength(0);
    clock.advance(1);
    await settle();
    expect(calls).toHaveLength(1);
    expect(c.report().servers).toEqual([update]);
    clock.advance(CHECK_EVERY_MS - 1);
    await settle();
    expect(calls).toHaveLength(1);
    clock.advance(1);
    await settle();
    expect(calls).toHaveLength(2);
    c.stop();
    clock.advance(2 * CHECK_EVERY_MS);
    expect(calls).toHaveLength(2);
  });

  it('turned off in Settings, checks only when asked', async () => {
    const clock = new ManualClock();
    let daily = true;
    const { checks: c, calls } = checks(clock, () => [], { daily: () => daily });
    c.start();
    daily = false;
    c.settingsChanged();
    expect(c.report().nextCheckAt).toBeNull();
    clock.advance(3 * CHECK_EVERY_MS);
    expect(calls).toHaveLength(0);
    expect((await c.check()).checkedAt).toBe(clock.now());
    expect(calls).toHaveLength(1);
  });

  it('tries again in an hour when a registry could not be reached', async () => {
    const clock = new ManualClock();
    const offline = { ...update, wanted: null, latest: null, changes: [], error: 'npm error ENOTFOUND' };
    const { checks: c, calls } = checks(clock, () => [offline]);
    c.start();
    clock.advance(FIRST_CHECK_DELAY_MS);
    await settle();
    expect(c.report().nextCheckAt).toBe(clock.now() + RETRY_AFTER_MS);
    clock.advance(RETRY_AFTER_MS);
    await settle();
    expect(calls).toHaveLength(2);
  });

  it('keeps what it found across a restart, and drops it once the server runs another approval', async () => {
    const clock = new ManualClock();
    const first = checks(clock, () => [update]);
    await first.checks.check();
    expect(JSON.parse(readFileSync(join(dir, 'updates.json'), 'utf8'))).toMatchObject({
      found: [{ lock: 'lock-1', entry: update }],
    });
    const again = checks(clock, () => []);
    expect(again.checks.report()).toMatchObject({ checkedAt: clock.now(), servers: [update] });
    expect(again.calls).toHaveLength(0);
    again.setLock('lock-2'); // updated (or approved again) since
    expect(again.checks.report().servers).toEqual([]);
  });
});
