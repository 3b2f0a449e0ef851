// Preloaded into `switchboard serve` by bench/bridge-tail.ts (`node --import …/call-trace.mjs`): a
// timestamp for every HTTP request (once its headers are parsed), socket write (TCP: the answer;
// pipe: the server's stdin) and pipe read (the server's stdout) and every GC, on the clock the bench's client uses, so each slow call can be split
// into the client's, serve's and the server's share. Off unless preloaded; serve's code is unchanged.
//
//   SB_CALL_TRACE=FILE: written (JSON) when serve gets SIGUSR2.
import diagnostics from 'node:diagnostics_channel';
import { writeFileSync } from 'node:fs';
import net from 'node:net';
import { PerformanceObserver, performance } from 'node:perf_hooks';
import { Readable } from 'node:stream';
import process from 'node:process';

const file = process.env.SB_CALL_TRACE;
if (file) {
  // performance.now() is per process; this offset puts it on CLOCK_MONOTONIC (process.hrtime), shared
  // by every process on the machine. Timestamps in ms.
  const offset = Number(process.hrtime.bigint()) / 1e6 - performance.now();
  const MAX = 400_000;
  const at = new Float64Array(MAX);
  const kind = new Uint8Array(MAX);
  const bytes = new Uint32Array(MAX);
  let n = 0;
  const note = (k, size, t = performance.now()) => {
    if (n >= MAX) return;
    at[n] = t + offset;
    kind[n] = k;
    bytes[n] = size;
    n++;
  };
  const KINDS = ['', 'request', 'tcp-write', 'pipe-write', 'pipe-read', 'gc-start', 'gc-end'];
  const isPipe = (socket) => socket._handle?.constructor?.name === 'Pipe';
  const sizeOf = (data) => (Array.isArray(data) ? data.length : (data?.length ?? 0));

  const writeGeneric = net.Socket.prototype._writeGeneric;
  net.Socket.prototype._writeGeneric = function (writev, data, encoding, cb) {
    note(isPipe(this) ? 3 : 2, sizeOf(data));
    return writeGeneric.call(this, writev, data, encoding, cb);
  };
  net.Socket.prototype.push = function (chunk, encoding) {
    if (chunk && isPipe(this)) note(4, chunk.length);
    return Readable.prototype.push.call(this, chunk, encoding);
  };
  // The HTTP parser reads the socket in C++ (no push): a request is seen once its headers are parsed.
  diagnostics.subscribe('http.server.request.start', () => note(1, 0));
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      note(5, entry.detail?.kind ?? 0, entry.startTime);
      note(6, entry.detail?.kind ?? 0, entry.startTime + entry.duration);
    }
  }).observe({ entryTypes: ['gc'] });

  process.on('SIGUSR2', () => {
    const events = [];
    for (let i = 0; i < n; i++) events.push([at[i], KINDS[kind[i]], bytes[i]]);
    events.sort((a, b) => a[0] - b[0]);
    writeFileSync(file, JSON.stringify({ pid: process.pid, events }));
  });
}
