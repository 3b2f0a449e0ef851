// Summarises a V8 .cpuprofile (from `node --cpu-prof`): the top functions by self time and by total
// (inclusive) time, and self time per package/area. Used by bench/bridge.ts --cpu-prof, or alone:
//
//   node_modules/.bin/node bench/bridge-profile.ts FILE.cpuprofile [--top 25] [--windows windows.json --kind seq|conc|sdk|raw]
//
// windows.json (written by bench/bridge.ts --cpu-prof beside the profile) holds the intervals during
// which the bench measured Switchboard: {"seq": [[from, to], …], "conc": […]} (aggregate: "sdk", "raw") in µs, CLOCK_MONOTONIC.
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { table } from './lib.ts';

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}

interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

const IDLE = new Set(['(idle)', '(program)', '(root)']);

/** Where a frame's code lives: a package under node_modules, a project folder, node's internals, or V8. */
function area(frame: CallFrame): string {
  const { url, functionName } = frame;
  if (!url) return functionName.startsWith('(') ? functionName : '(native/V8 builtin)';
  if (url.startsWith('node:')) return `node:${url.slice(5).split('/')[0] ?? ''}`;
  const nm = url.lastIndexOf('/node_modules/');
  if (nm !== -1) {
    const rest = url.slice(nm + '/node_modules/'.length).split('/');
    return rest[0]?.startsWith('@') ? `${rest[0]}/${rest[1] ?? ''}` : (rest[0] ?? url);
  }
  const m = /\/(electron|shared|bench|test)\/(.*)$/.exec(url);
  return m ? `${m[1]}/${(m[2] ?? '').split('/').slice(0, -1).join('/') || '.'}` : url;
}

function frameName(frame: CallFrame): string {
  const file = frame.url
    .replace(/^file:\/\//, '')
    .replace(/^.*\/node_modules\//, '')
    .replace(/^.*\/(electron|shared)\//, '$1/');
  return `${frame.functionName || '(anonymous)'} ${file ? `${file}:${frame.lineNumber + 1}` : ''}`.trim();
}

export interface SummaryOptions {
  /** how many rows per table */
  top?: number;
  /** only samples taken inside these [from, to] intervals (µs, CLOCK_MONOTONIC like the profile's timestamps) */
  windows?: readonly (readonly [number, number])[];
}

export function summarizeProfile(file: string, options: SummaryOptions = {}): string {
  const top = options.top ?? 25;
  const windows = options.windows;
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const byId = new Map<number, ProfileNode>();
  const parent = new Map<number, number>();
  for (const node of profile.nodes) {
    byId.set(node.id, node);
    for (const child of node.children ?? []) parent.set(child, node.id);
  }
  const self = new Map<string, number>();
  const total = new Map<string, number>();
  const areas = new Map<string, number>();
  let busy = 0;
  let idle = 0;
  const { samples, timeDeltas } = profile;
  let at = profile.startTime;
  let counted = 0;
  for (let i = 0; i < samples.length; i++) {
    at += timeDeltas[i] ?? 0;
    if (windows && !windows.some(([from, to]) => at >= from && at <= to)) continue;
    counted++;
    // timeDeltas[i] is the time since the previous sample; attribute it to the sample that follows it.
    const delta = (timeDeltas[i + 1] ?? 0) / 1000;
    const node = byId.get(samples[i] as number);
    if (!node) continue;
    const name = node.callFrame.functionName;
    if (IDLE.has(name) && name !== '(program)') {
      idle += delta;
      continue;
    }
    busy += delta;
    const key = frameName(node.callFrame);
    self.set(key, (self.get(key) ?? 0) + delta);
    const a = area(node.callFrame);
    areas.set(a, (areas.get(a) ?? 0) + delta);
    const seen = new Set<string>();
    for (let id: number | undefined = node.id; id !== undefined; id = parent.get(id)) {
      const n = byId.get(id);
      if (!n || IDLE.has(n.callFrame.functionName)) continue;
      const k = frameName(n.callFrame);
      if (seen.has(k)) continue;
      seen.add(k);
      total.set(k, (total.get(k) ?? 0) + delta);
    }
  }
  const pct = (v: number) => `${((v * 100) / busy).toFixed(1)}%`;
  const rows = (m: Map<string, number>, label: string) => [
    [label, 'ms', 'of busy'],
    ...[...m.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([k, v]) => [k.length > 110 ? `${k.slice(0, 107)}…` : k, v.toFixed(0), pct(v)]),
  ];
  const wall = windows
    ? windows.reduce((sum, [from, to]) => sum + (to - from), 0) / 1000
    : (profile.endTime - profile.startTime) / 1000;
  return [
    `profile${windows ? ` (${windows.length} windows)` : ''}: ${(wall / 1000).toFixed(1)} s wall, ` +
      `${busy.toFixed(0)} ms busy, ${idle.toFixed(0)} ms idle, ${counted} samples`,
    '',
    table(rows(areas, 'self time by area')),
    '',
    table(rows(self, 'self time by function')),
    '',
    table(rows(total, 'total (inclusive) time by function')),
  ].join('\n');
}

if (import.meta.main) {
  const { values, positionals } = parseArgs({
    options: {
      top: { type: 'string', default: '25' },
      windows: { type: 'string' },
      kind: { type: 'string', default: 'seq' },
    },
    allowPositionals: true,
    strict: true,
  });
  if (positionals.length === 0) {
    console.error('usage: node bench/bridge-profile.ts FILE.cpuprofile [--top N]');
    process.exit(2);
  }
  let windows: [number, number][] | undefined;
  if (values.windows) {
    const all = JSON.parse(readFileSync(values.windows, 'utf8')) as Record<string, [number, number][]>;
    windows = all[values.kind];
    if (!windows) throw new Error(`${values.windows} has no "${values.kind}" windows`);
  }
  for (const file of positionals) console.log(summarizeProfile(file, { top: Number(values.top), windows }));
}
