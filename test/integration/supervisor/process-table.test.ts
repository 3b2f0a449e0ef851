import { execFile, spawn } from 'node:child_process';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { groupMembers } from '../../../electron/core/supervisor/process-table.ts';
import { fixture, killHard } from './helpers.ts';

const run = promisify(execFile);

describe.skipIf(process.platform !== 'linux')('the process table (Linux /proc)', () => {
  const groups: number[] = [];
  afterEach(() => {
    for (const pgid of groups.splice(0)) killHard(pgid);
  });

  /** A process group of `size`: a shell leading it and size - 1 sleeping children; its pids once all run. */
  async function group(size: number): Promise<{ pgid: number; pids: number[] }> {
    const leader = spawn(
      '/bin/sh',
      ['-c', `i=1; while [ $i -lt ${size} ]; do sleep 300 & i=$((i+1)); done; wait`],
      {
        detached: true,
        stdio: 'ignore',
      },
    );
    const pgid = leader.pid as number;
    groups.push(pgid);
    leader.unref();
    let members = await groupMembers(pgid);
    while (members.length < size) members = await groupMembers(pgid);
    return { pgid, pids: members.map((m) => m.pid).sort() };
  }

  it('callers asking at once about different groups each get exactly their own members', async () => {
    const a = await group(5);
    const b = await group(3);
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) => groupMembers(i % 2 === 0 ? a.pgid : b.pgid)),
    );
    answers.forEach((answer, i) => {
      expect(answer.map((m) => m.pid).sort()).toEqual(i % 2 === 0 ? a.pids : b.pids);
    });
    killHard(b.pgid);
    // b is gone: the next question sees it so (a scan from before the kill is never reused).
    let left = await groupMembers(b.pgid);
    while (left.length > 0) left = await groupMembers(b.pgid);
    expect((await groupMembers(a.pgid)).length).toBe(5);
  });

  it('fifty servers checking a group of a hundred at once hold little memory (serve stays under its budget)', async () => {
    // Issue 24 item 18: each check used to read every /proc/<pid>/stat with readFile, 64 KiB apiece:
    // ~320 MB at the peak here, of which serve's malloc heap kept tens of MB after a first start.
    const { stdout } = await run(process.execPath, [fixture('group-scan-host.ts'), '100', '50', '4'], {
      timeout: 120_000,
    });
    const report = JSON.parse(stdout) as { members: number; seen: number[]; peakGrowthKb: number };
    expect(report.seen).toEqual([100]);
    expect(report.peakGrowthKb).toBeLessThan(48 * 1024);
  });
});
