// The header helper (electron/core/editors/headers-helper.ts): Claude Code and Codex run it on every
// connection to the bridge, so its start to exit is added to each connection. This writes the helper
// and a token into a temporary home and times `<helper> codex`, spawned the way the clients spawn it,
// `--runs` times (after a few warm-up runs); for comparison, the same done by a Node one-liner.
//
//   node bench/headers-helper.ts [--runs N]
//
// With hyperfine installed, the same figure without Node's own spawn overhead:
//   hyperfine -N --warmup 20 '<home>/bin/editor-headers codex'   (the path is printed below)
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { TokenStore } from '../electron/core/tokens/token-store.ts';
import { ensureHeadersHelper } from '../electron/core/editors/headers-helper.ts';
import { resolveHome } from '../electron/core/home.ts';

const { values } = parseArgs({
  options: { runs: { type: 'string', default: '300' }, keep: { type: 'boolean', default: false } },
});
const runs = Number(values.runs);
const dir = mkdtempSync(join(tmpdir(), 'sb-helper-bench-'));
try {
  const home = resolveHome({ SWITCHBOARD_HOME: dir }, process.platform);
  const token = new TokenStore(home.tokens).ensure('codex');
  const helper = ensureHeadersHelper(home, process.platform);

  const time = (command: string, args: string[]): number[] => {
    const out: number[] = [];
    for (let i = 0; i < runs + 10; i++) {
      const start = process.hrtime.bigint();
      const r = spawnSync(command, args, { encoding: 'utf8' });
      const ms = Number(process.hrtime.bigint() - start) / 1e6;
      if (r.status !== 0 || !r.stdout.includes(token)) throw new Error(`${command} failed: ${r.stderr}`);
      if (i >= 10) out.push(ms);
    }
    return out.sort((a, b) => a - b);
  };
  const pct = (sorted: number[], p: number) =>
    sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? NaN;
  const show = (name: string, sorted: number[]) =>
    console.log(
      `${name}: p50 ${pct(sorted, 0.5).toFixed(2)} ms, p95 ${pct(sorted, 0.95).toFixed(2)} ms (${runs} runs)`,
    );

  console.log(`helper: ${helper}`);
  show('header helper (sh)', time(helper, ['codex']));
  const file = join(home.tokens, 'editors', 'codex');
  show(
    'same in Node, for comparison',
    time(process.execPath, [
      '-e',
      `const t=require('fs').readFileSync(${JSON.stringify(file)},'utf8').trim();console.log(JSON.stringify({Authorization:'Bearer '+t}))`,
    ]),
  );
  if (values.keep) console.log(`kept: ${dir}`);
} finally {
  if (!values.keep) rmSync(dir, { recursive: true, force: true });
}
