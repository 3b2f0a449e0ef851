// What reading tool answers for sandbox refusals costs (issue 33 item 3): the part on the answer's way
// (checkToolAnswer), the deferred scan at its bounds, and following a program to its files.
// Run: node bench/tool-answer-refusals.ts
import { checkToolAnswer } from '../electron/core/bridge/tool-answer-refusals.ts';
import { refusalInAnswer } from '../electron/core/sandbox/answer-refusals.ts';
import { programFiles } from '../electron/core/sandbox/program-files.ts';
import { LINUX_SUPPORT, sandboxedPolicy } from '../test/helpers/sandbox.ts';
const policy = sandboxedPolicy(LINUX_SUPPORT, {
  home: '/home/ada',
  switchboardHome: '/home/ada/.config/switchboard',
  command: '/usr/bin/node',
});
const run = {
  explain: () => undefined,
  answered: () => {},
  onRefusal: () => () => {},
  release: async () => {},
};
const time = (label: string, n: number, f: () => unknown) => {
  for (let i = 0; i < 1000; i++) f();
  const t = process.hrtime.bigint();
  for (let i = 0; i < n; i++) f();
  console.log(label, (Number(process.hrtime.bigint() - t) / n / 1000).toFixed(2), 'µs/call');
};
const small = {
  jsonrpc: '2.0' as const,
  id: 1,
  result: { content: [{ type: 'text', text: 'x'.repeat(1000) }] },
};
const big = {
  jsonrpc: '2.0' as const,
  id: 1,
  result: { content: [{ type: 'text', text: 'line /usr/lib/thing ok\n'.repeat(5000) }] },
};
time('checkToolAnswer 1 KB (sync part)', 100000, () => checkToolAnswer(run, {}, small));
time('checkToolAnswer 110 KB (sync part)', 20000, () => checkToolAnswer(run, {}, big));
const text16 = Array.from(
  { length: 260 },
  (_, i) => `Error: ENOENT: no such file or directory, open '/usr/lib/x/${i}'`,
).join('\n');
time('refusalInAnswer 16 KB, every line a failure naming a visible path', 2000, () =>
  refusalInAnswer(text16, { path: '/usr/lib' }, true, policy),
);
time('refusalInAnswer 1 KB, no path', 100000, () => refusalInAnswer('y'.repeat(1000), {}, false, policy));
time('programFiles(node_modules/.bin/node)', 5000, () => programFiles([process.execPath]));
