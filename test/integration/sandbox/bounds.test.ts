import { afterEach, describe, expect, it } from 'vitest';
import { BOUNDS } from '../../../electron/core/sandbox/bounds.ts';
import { sandboxSupportFor } from '../../../electron/core/sandbox/support.ts';
import { runInSandbox, type SandboxRun } from '../../helpers/real-sandbox.ts';
import { sandboxUnavailable } from '../../helpers/sandbox.ts';
import { tempHome, type TempHome } from '../../helpers/temp-home.ts';

// Issue 32 item 9 (second bullet): a sandboxed server cannot take the whole computer. Real
// bubblewrap under the default policy (no network), a shell standing in for a server that fills its
// temp folders and forks without end; what it managed is read back from inside. The task bound
// holds for an ordinary user (the kernel exempts root from RLIMIT_NPROC): as root, that test runs
// the sandbox as uid 4242 through setpriv, as other-user.test.ts does.
const skip = sandboxUnavailable() !== undefined;
const root = process.getuid?.() === 0;
const UID = 4242;
const MiB = 1024 * 1024;

let t: TempHome | undefined;
afterEach(() => {
  t?.cleanup();
  t = undefined;
});

/** Runs `script` with /bin/sh in the default sandbox of a server; its stdout and exit status. */
async function inSandbox(script: string, options: { ordinaryUser?: boolean } = {}): Promise<SandboxRun> {
  t = tempHome();
  const asOther = options.ordinaryUser === true && root;
  const found = sandboxSupportFor('linux', process.env.PATH);
  return runInSandbox(t, {
    command: '/bin/sh',
    args: ['-c', script],
    setting: { network: 'none' },
    support: asOther ? { ...found, root: false } : found,
    tempRoot: t.dir,
    ...(asOther ? { asUid: UID } : {}),
  });
}

/** MiB written to `path` by dd asked for more than the bound, as the file's size says afterwards. */
const fill = (path: string, mib: number) =>
  `dd if=/dev/zero of=${path} bs=1M count=${mib} 2>/dev/null; stat -c %s ${path}; rm -f ${path}`;

describe.skipIf(skip)('resource bounds in the sandbox', () => {
  it('stops a server filling /tmp, /var/tmp or /dev/shm at their bound, not at half the RAM', async () => {
    const over = BOUNDS.tempBytes / MiB + 128;
    const { out, err } = await inSandbox(
      [
        fill('/tmp/big', over),
        fill('/var/tmp/big', over),
        fill('/dev/shm/big', BOUNDS.shmBytes / MiB + 64),
      ].join('; '),
    );
    const sizes = out.trim().split('\n').map(Number);
    expect(sizes, err).toHaveLength(3);
    expect(sizes[0]).toBeLessThanOrEqual(BOUNDS.tempBytes);
    expect(sizes[1]).toBeLessThanOrEqual(BOUNDS.tempBytes);
    expect(sizes[2]).toBeLessThanOrEqual(BOUNDS.shmBytes);
    // and it did write up to the bound: the folders work
    expect(sizes[0]).toBeGreaterThan(BOUNDS.tempBytes - 16 * MiB);
  });

  it('stops a fork bomb at its task bound (an ordinary user)', async () => {
    // 1.5 × the bound of sleepers, from a shell that stops at its first failed fork; then counted
    // with builtins only (no fork is left to count with)
    const bomb = `i=0; while [ $i -lt ${BOUNDS.tasks + BOUNDS.tasks / 2} ]; do sleep 20 & i=$((i+1)); done`;
    const { out, err } = await inSandbox(
      `/bin/sh -c '${bomb}' 2>/dev/null; set -- /proc/[0-9]*; echo $#; kill -9 -1 2>/dev/null; true`,
      { ordinaryUser: true },
    );
    const processes = Number(out.trim().split('\n').at(-1));
    expect(processes, err).toBeGreaterThan(BOUNDS.tasks / 2);
    expect(processes).toBeLessThanOrEqual(BOUNDS.tasks);
  });

  it('starts every server with bounded memory per process and file size', async () => {
    const { out } = await inSandbox('cat /proc/self/limits');
    const limit = (name: string) =>
      out
        .split('\n')
        .find((l) => l.startsWith(name))
        ?.split(/\s{2,}/)[1];
    expect(limit('Max data size')).toBe(String(BOUNDS.dataBytes));
    expect(limit('Max file size')).toBe(String(BOUNDS.fileBytes));
    expect(limit('Max processes')).toBe(String(BOUNDS.tasks));
  });
});
