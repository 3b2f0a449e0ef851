import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COMMAND_HELP } from '../../../electron/cli/help.ts';
import { runCli } from '../../helpers/cli.ts';
import { tempHome, type TempHome } from '../../helpers/temp-home.ts';

// Issue 24 item 15: `--version`, every command's `--help`, and `help CMD` printing that command's help.

let t: TempHome;
beforeAll(() => {
  t = tempHome();
});
afterAll(() => t.cleanup());

const version = (
  JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as {
    version: string;
  }
).version;

describe('help and version', () => {
  it('--version prints the version and exits 0', async () => {
    const run = await runCli(['--version'], t.env);
    expect(run).toMatchObject({ code: 0, stdout: `switchboard ${version}\n`, stderr: '' });
  });

  it('every command takes --help: its own usage, exit 0, nothing done', async () => {
    for (const name of Object.keys(COMMAND_HELP)) {
      const run = await runCli([name, '--help'], t.env);
      expect(run.code, `${name} --help: ${run.stderr}`).toBe(0);
      expect(run.stdout.startsWith(`usage: switchboard ${name}`), `${name} --help:\n${run.stdout}`).toBe(
        true,
      );
      expect(run.stderr).toBe('');
    }
    // `status --help` used to be "Unknown option '--help'" (exit 2); -h is the same.
    const short = await runCli(['status', '-h'], t.env);
    expect(short.code).toBe(0);
    expect(short.stdout).toContain('--json');
  });

  it('help CMD prints that command, not the overview', async () => {
    const run = await runCli(['help', 'add'], t.env);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^usage: switchboard add NAME/);
    expect(run.stdout).toContain('--header KEY=VALUE');
    expect(run.stdout).not.toContain('catalog search');
    const overview = await runCli(['help'], t.env);
    expect(overview.stdout).toContain('catalog search');
    expect(overview.stdout).toContain('--version');
    // The overview lists every form of projects the README uses (`projects rm acme`, `projects give`).
    expect(overview.stdout).toContain('rm DIR|NAME');
    expect(overview.stdout).toContain("projects give SERVER 'REQUEST'");
    const unknown = await runCli(['help', 'nosuch'], t.env);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('no command "nosuch"');
  });

  it("--help after `--` belongs to the server's command line, not to add", async () => {
    const run = await runCli(['add', 'x', '--', 'node', '--help'], t.env);
    expect(run.code).toBe(0);
    expect(readFileSync(t.home.serversFile, 'utf8')).toContain('"--help"');
  });

  it('an unknown option names the command forms that are taken', async () => {
    const run = await runCli(['status', '--bogus'], t.env);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("Unknown option '--bogus'");
    expect(run.stderr).toContain('usage: switchboard status [--json]');
  });
});
