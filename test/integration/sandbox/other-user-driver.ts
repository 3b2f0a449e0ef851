// Runs the hostile fixture in Switchboard's sandbox as whoever runs this script, then prints what
// its attempts did as JSON on stdout. Used by other-user.test.ts to run the sandbox as an ordinary
// user; it imports only the sandbox's own modules (copied beside it with the Node binary, since the
// checkout may be in a folder that user cannot enter).
//   argv: JSON { home, switchboardHome, fixture, setting, env }
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { sandboxPolicy } from '../../../electron/core/sandbox/policy.ts';
import { Sandboxes } from '../../../electron/core/sandbox/sandboxes.ts';
import { detectSandboxSupport } from '../../../electron/core/sandbox/support.ts';

interface Input {
  home: string;
  switchboardHome: string;
  fixture: string;
  setting: undefined | { read?: string[]; write?: string[]; network?: string[] | 'all' | 'none' };
  env: Record<string, string>;
}

const input = JSON.parse(process.argv[2] ?? '{}') as Input;
const support = detectSandboxSupport({ path: process.env.PATH });
if (support.engine === null || support.networkFilter === null) {
  process.stdout.write(JSON.stringify({ skipped: support.missing || support.networkFilterMissing }));
  process.exit(0);
}
const ownFolder = join(input.switchboardHome, 'data', 'hostile');
const policy = sandboxPolicy({
  name: 'hostile',
  setting: input.setting,
  command: process.execPath,
  args: [input.fixture],
  env: input.env,
  cwd: undefined,
  ownFolder,
  switchboardHome: input.switchboardHome,
  userHome: input.home,
  support,
});
const sandboxes = new Sandboxes({ support, tempRoot: input.home });
const env: Record<string, string> = {
  PATH: process.env.PATH ?? '/usr/bin:/bin',
  HOME: input.home,
  SWITCHBOARD_HOME: input.switchboardHome,
  ...input.env,
};
const { program, run } = await sandboxes.wrap(
  { command: process.execPath, args: [input.fixture], cwd: ownFolder, env },
  policy,
);
const child = spawn(program.command, program.args, {
  cwd: program.cwd,
  env: program.env,
  stdio: ['pipe', 'pipe', 'pipe'],
  detached: true,
});
const refusals: string[] = [];
run?.onRefusal((refusal) => refusals.push(refusal.words));
let stderr = '';
child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
let stdout = '';
const answer = new Promise<string>((resolve) =>
  child.stdout.on('data', (d: Buffer) => {
    stdout += d.toString();
    const line = stdout.split('\n').find((l) => l.includes('"id":2'));
    if (line) resolve(line);
  }),
);
const send = (m: object) => child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', ...m })}\n`);
send({
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'driver', version: '1' } },
});
send({ id: 2, method: 'tools/call', params: { name: 'attempt', arguments: {} } });
const line = await answer;
child.stdin.end();
await new Promise((resolve) => child.once('close', resolve));
await sandboxes.dispose();
const results = JSON.parse(
  (JSON.parse(line) as { result: { content: { text: string }[] } }).result.content[0]?.text ?? '{}',
) as unknown;
for (const l of stderr.split('\n')) {
  const words = run?.explain(l)?.words;
  if (words && !refusals.includes(words)) refusals.push(words);
}
process.stdout.write(JSON.stringify({ uid: process.getuid?.(), results, refusals }));
