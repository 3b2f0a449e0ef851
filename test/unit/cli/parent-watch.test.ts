import { describe, expect, it } from 'vitest';
import { watchParent } from '../../../electron/cli/parent-watch.ts';
import { waitFor } from '../../helpers/servers.ts';

// The real case (Linux: re-parented to init) is tested end to end in test/integration/cli/serve.test.ts;
// here the platform differences, which cannot happen on this machine, are simulated.
describe('watchParent', () => {
  it('fires once when the parent pid changes (Linux, macOS)', async () => {
    let ppid = 4242;
    const gone: number[] = [];
    const stop = watchParent((p) => gone.push(p), { ppid: () => ppid, alive: () => true, intervalMs: 5 });
    await new Promise((r) => setTimeout(r, 30));
    expect(gone).toEqual([]);
    ppid = 1;
    await waitFor(() => gone.length > 0, 1_000, 'the watch to fire');
    await new Promise((r) => setTimeout(r, 30));
    expect(gone).toEqual([4242]);
    stop();
  });

  it('fires when the parent is gone but its pid stays (Windows does not re-parent)', async () => {
    let alive = true;
    const gone: number[] = [];
    const stop = watchParent((p) => gone.push(p), { ppid: () => 777, alive: () => alive, intervalMs: 5 });
    alive = false;
    await waitFor(() => gone.length > 0, 1_000, 'the watch to fire');
    expect(gone).toEqual([777]);
    stop();
  });

  it('never fires for a serve started by init or a container runtime (nothing to lose)', async () => {
    const gone: number[] = [];
    for (const start of [0, 1]) {
      let ppid = start;
      const stop = watchParent((p) => gone.push(p), { ppid: () => ppid, alive: () => false, intervalMs: 5 });
      ppid = 99;
      await new Promise((r) => setTimeout(r, 30));
      stop();
    }
    expect(gone).toEqual([]);
  });
});
