// Preloaded into `switchboard serve` by bench/bridge-alloc.ts (node --import). Once the file
// $SB_HEAP_SAMPLE_OUT.start appears it samples every allocation, also of objects the GC has collected
// since (V8's sampling heap profiler), and counts garbage collections; once $SB_HEAP_SAMPLE_OUT.stop
// appears it writes both to $SB_HEAP_SAMPLE_OUT. (Files, not signals: SIGUSR1 is Node's inspector.)
import { existsSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import { PerformanceObserver } from 'node:perf_hooks';
import { isMainThread } from 'node:worker_threads';

const out = process.env.SB_HEAP_SAMPLE_OUT;
// Node also runs --import in its module-hooks thread: only the main thread samples.
if (out && isMainThread) {
  const session = new Session();
  session.connect();
  const gcs = [];
  let state = 'waiting';
  new PerformanceObserver((list) => {
    if (state === 'sampling')
      for (const e of list.getEntries()) gcs.push({ kind: e.detail?.kind, ms: e.duration });
  }).observe({ entryTypes: ['gc'] });
  const poll = setInterval(() => {
    if (state === 'waiting' && existsSync(`${out}.start`)) {
      state = 'sampling';
      session.post('HeapProfiler.enable');
      session.post('HeapProfiler.startSampling', {
        samplingInterval: 256,
        includeObjectsCollectedByMinorGC: true,
        includeObjectsCollectedByMajorGC: true,
      });
    } else if (state === 'sampling' && existsSync(`${out}.stop`)) {
      state = 'done';
      clearInterval(poll);
      session.post('HeapProfiler.stopSampling', (err, result) =>
        writeFileSync(out, JSON.stringify(err ? { error: String(err) } : { profile: result.profile, gcs })),
      );
    }
  }, 50);
  poll.unref();
}
