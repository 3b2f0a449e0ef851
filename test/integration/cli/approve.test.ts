import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CWD_NOT_ABSOLUTE } from '../../../shared/schema/servers.ts';
import { BIN, runCli, type CliResult } from '../../helpers/cli.ts';
import { fixtureServer, NODE } from '../../helpers/servers.ts';
import { tempHome, type TempHome } from '../../helpers/temp-home.ts';
import { install } from '../editors/helpers.ts';

// `switchboard approve` and `import` as a person meets them in a terminal: what they print cannot be
// redrawn by the config they print (bidi controls, ESC sequences, line breaks), and an approval covers
// exactly what was printed. Real processes; a real pseudo-terminal (util-linux `script`) for the y/N
// prompts, since they only ask when stdin is a terminal.

/** Right-to-left override, an ESC sequence that erases the line, and a line break that fakes a line. */
const RLO_ARG = 'x\u202Eexe.txt';
const ESC_ARG = '\u001b[2K\u001b[1Gclean';
const NEWLINE_ARG = 'ok\ncwd: /home/you/safe';
const RAW = ['\u202E', '\u001b', '\u2028', '\u200B'];

/** None of the characters above reached the output as themselves. */
function expectNoRaw(output: string): void {
  for (const raw of RAW) expect(output).not.toContain(raw);
}

let t: TempHome;

beforeEach(() => {
  t = tempHome();
});

afterEach(() => t.cleanup());

function spoofServer(extraArgs: string[] = []) {
  const base = fixtureServer('env-echo-server.mjs');
  return {
    ...base,
    args: [...base.args, RLO_ARG, ESC_ARG, NEWLINE_ARG, ...extraArgs],
    env: { GITHUB_TOKEN: '${secret:github-token}' },
  };
}

/** The escaped words every listing must show, each on the command line itself. */
function expectEscaped(output: string): void {
  expectNoRaw(output);
  const command = output.split('\n').find((line) => line.includes('command: '));
  expect(command).toContain(`'x\\u{202E}exe.txt'`);
  expect(command).toContain(`'\\u{1B}[2K\\u{1B}[1Gclean'`);
  expect(command).toContain(`'ok\\u{0A}cwd: /home/you/safe'`);
  // The line break inside the argument drew no line of its own.
  expect(output.split('\n').some((line) => line.trimStart().startsWith('cwd: /home/you/safe'))).toBe(false);
}

/**
 * Runs `switchboard ARGS…` on a pseudo-terminal; `answer` is called once the output contains `prompt`
 * and returns what to type. Output comes back with the terminal's CRLF turned into LF.
 */
function runInTerminal(
  args: string[],
  prompt: string,
  answer: () => string,
): Promise<{ code: number | null; output: string }> {
  const command = [NODE, BIN, ...args].map((w) => `'${w.replaceAll("'", `'\\''`)}'`).join(' ');
  const child = spawn('script', ['-qfec', command, '/dev/null'], {
    env: t.env,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let output = '';
  let answered = false;
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`no prompt "${prompt}" within 30 s:\n${output}`));
    }, 30_000);
    child.stdout.on('data', (d: Buffer) => {
      output += d.toString();
      if (!answered && output.includes(prompt)) {
        answered = true;
        child.stdin.write(`${answer()}\n`);
      }
    });
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, output: output.replaceAll('\r\n', '\n') });
    });
  });
}

function approvals(): Record<string, { fingerprint: string }> {
  try {
    return (
      (
        JSON.parse(readFileSync(t.home.stateFile, 'utf8')) as {
          approvals?: Record<string, { fingerprint: string }>;
        }
      ).approvals ?? {}
    );
  } catch {
    return {};
  }
}

function fingerprintIn(result: CliResult): string {
  const fingerprint = /--fingerprint ([0-9a-f]{64})/.exec(result.stderr)?.[1];
  if (!fingerprint) throw new Error(`no fingerprint offered:\n${result.stdout}\n${result.stderr}`);
  return fingerprint;
}

describe('switchboard approve', () => {
  it('shows the command with control, bidi and line-break characters escaped, and what it passes on', async () => {
    t.writeServers({ mcpServers: { spoof: spoofServer() } });
    const shown = await runCli(['approve', 'spoof'], t.env);
    expectEscaped(shown.stdout);
    expect(shown.stdout).toContain('"spoof" (waiting for approval; from servers.json, edited by hand');
    expect(shown.stdout).toContain(
      `  ! gives your keychain secret "github-token" to ${NODE} in env GITHUB_TOKEN`,
    );
    // No terminal and no --yes/--fingerprint: shown, not approved.
    expect(shown.code).toBe(1);
    expect(shown.stderr).toContain('Not approved: nobody confirmed it.');
    expect(approvals()).toEqual({});

    const approved = await runCli(['approve', 'spoof', '--fingerprint', fingerprintIn(shown)], t.env);
    expect(approved.code, approved.stderr).toBe(0);
    expectEscaped(approved.stdout);
    expect(approved.stdout).toContain('Approved "spoof".');
    expect(approvals().spoof?.fingerprint).toBe(fingerprintIn(shown));
  });

  it('approves only the fingerprint that was shown: a change to servers.json in between is refused', async () => {
    t.writeServers({ mcpServers: { spoof: spoofServer() } });
    const shown = await runCli(['approve', 'spoof'], t.env);
    t.writeServers({ mcpServers: { spoof: spoofServer(['--allow-all']) } });
    const late = await runCli(['approve', 'spoof', '--fingerprint', fingerprintIn(shown)], t.env);
    expect(late.code).toBe(1);
    expect(late.stderr).toContain(
      'server "spoof" was not approved: its configuration changed since it was shown — review it again',
    );
    // What it printed is what is configured now, so that is what a person reviews next.
    expect(late.stdout).toContain('--allow-all');
    expect(approvals()).toEqual({});
    expect((await runCli(['approve', 'spoof', '--fingerprint', 'abc'], t.env)).code).toBe(2);
  });

  it('asks in a terminal, and refuses when the config changed while the question was open', async () => {
    t.writeServers({ mcpServers: { spoof: spoofServer() } });
    const raced = await runInTerminal(['approve', 'spoof'], 'to run exactly this? [y/N]', () => {
      t.writeServers({ mcpServers: { spoof: spoofServer(['--allow-all']) } });
      return 'y';
    });
    expectEscaped(raced.output);
    expect(raced.output).not.toContain('--allow-all');
    expect(raced.output).toContain('its configuration changed since it was shown');
    expect(raced.code).toBe(1);
    expect(approvals()).toEqual({});

    const confirmed = await runInTerminal(['approve', 'spoof'], '[y/N]', () => 'y');
    expect(confirmed.output).toContain('--allow-all');
    expect(confirmed.output).toContain('Approved "spoof".');
    expect(confirmed.code).toBe(0);
    expect(Object.keys(approvals())).toEqual(['spoof']);
  });

  it('escapes what status and logs print, and says a relative cwd must be absolute', async () => {
    t.writeServers({
      mcpServers: {
        leaky: { ...fixtureServer('env-echo-server.mjs'), env: { 'API_KEY\u202E': 'sk-live-abc123' } },
      },
    });
    const status = await runCli(['status'], t.env);
    expect(status.stdout).toContain('env API_KEY\\u{202E} holds a literal secret');
    expectNoRaw(status.stdout);
    // An error that quotes the config is escaped too.
    const refused = await runCli(['approve', 'leaky', '--yes'], t.env);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('cannot be approved: env API_KEY\\u{202E} holds a literal secret');
    expectNoRaw(refused.stderr);

    mkdirSync(t.home.logs, { recursive: true });
    writeFileSync(
      join(t.home.logs, 'leaky.log'),
      `2025-01-01T00:00:00.000Z INFO  \u001b[2Kall good \u202Eetc\n`,
    );
    const logs = await runCli(['logs', 'leaky'], t.env);
    expect(logs.stdout).toBe('2025-01-01T00:00:00.000Z INFO  \\u{1B}[2Kall good \\u{202E}etc\n');

    t.writeServers({ mcpServers: { rel: { command: 'node', cwd: 'projects/x' } } });
    const relative = await runCli(['status'], t.env);
    expect(relative.stdout).toContain('server "rel", field "cwd"');
    expect(relative.stdout).toContain(CWD_NOT_ABSOLUTE);
  });
});

describe('switchboard import', () => {
  it('lists editor entries escaped, also around its y/N prompt', async () => {
    t.writeServers({ mcpServers: {} });
    install(
      t,
      'cursor',
      JSON.stringify({
        mcpServers: { 'gh\u202Etxt': { command: NODE, args: [RLO_ARG, ESC_ARG, NEWLINE_ARG] } },
      }),
    );
    const listed = await runCli(['import', '--from', 'cursor'], t.env);
    expect(listed.code, listed.stderr).toBe(0);
    expectEscaped(listed.stdout);
    expect(listed.stdout).toContain('Cursor: "gh\\u{202E}txt" — imports as "gh-txt"');
    // the program its approval pins, as `approve` shows it
    expect(listed.stdout).toContain(`\n    runs: ${NODE}\n`);

    const asked = await runInTerminal(['import', '--from', 'cursor'], '[y/N]', () => 'n');
    expectEscaped(asked.output);
    expect(asked.output).toContain('Nothing imported.');
    expect(asked.code).toBe(0);

    // "y" at the prompt imports what was listed (the prompt used to read every answer as "no").
    const yes = await runInTerminal(['import', '--from', 'cursor'], '[y/N]', () => 'y');
    expectNoRaw(yes.output);
    expect(yes.output).toContain('and approved: gh-txt');
    expect(Object.keys(approvals())).toEqual(['gh-txt']);
  });
});
