import { readFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { StatusReportSchema } from '../../../shared/status.ts';
import { exited, runCli, startServe } from '../../helpers/cli.ts';
import { NODE } from '../../helpers/servers.ts';
import { tempHome, type TempHome } from '../../helpers/temp-home.ts';
import { install } from '../editors/helpers.ts';

// Issue 24 item 11: what comes from outside is escaped, our own layout is not. Two problems in
// servers.json are two lines (not one line joined by "\u{0A}"); a tab-indented editor file's diff keeps
// its tabs (not "\u{09}" on every line); a hidden character inside a problem is still escaped.

let t: TempHome;
beforeEach(() => {
  t = tempHome();
});
afterEach(() => t.cleanup());

// Two errors, and a bidi control in a server name (from the file: escaped).
const TWO_ERRORS = '{ "mcpServers": { "a": { "command": "foo bar" }, "b\u202E": { "args": [1] } } }\n';

describe('our own line breaks stay line breaks', () => {
  it('status, status --json and a running serve show each servers.json error on its own line', async () => {
    t.writeServers(TWO_ERRORS);
    const offline = await runCli(['status'], t.env);
    expect(offline.stdout).not.toContain('\\u{0A}');
    const lines = offline.stdout.split('\n');
    expect(lines.some((l) => l.startsWith('servers.json:1:26: server "a", field "command"'))).toBe(true);
    expect(lines.some((l) => l.startsWith('servers.json:1:50: server name "b\\u{202E}"'))).toBe(true);

    const json = StatusReportSchema.parse(JSON.parse((await runCli(['status', '--json'], t.env)).stdout));
    expect(json.configError?.split('\n')).toHaveLength(2);
    expect(json.configError).toContain('\\u{202E}');

    // The UI's banner shows what the control API says: the same two lines.
    const serve = await startServe(t.env);
    try {
      const live = StatusReportSchema.parse(JSON.parse((await runCli(['status', '--json'], t.env)).stdout));
      expect(live.live).toBe(true);
      expect(live.configError?.split('\n')).toHaveLength(2);
      expect(live.configError).not.toContain('\\u{0A}');
    } finally {
      serve.child.kill('SIGTERM');
      await exited(serve.child);
    }
  });

  it("sync --dry-run shows a tab-indented editor file's diff with its tabs, hidden characters escaped", async () => {
    const zed = install(t, 'zed', '{\n\t"theme": "One Dark",\n\t"x": "a\u202Eb"\n}\n');
    t.writeServers({ mcpServers: { alpha: { command: NODE, args: ['alpha.js'] } } });
    expect((await runCli(['approve', 'alpha', '--yes'], t.env)).code).toBe(0);
    const run = await runCli(['sync', '--dry-run'], t.env);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('\n \t"theme": "One Dark",');
    expect(run.stdout).not.toContain('\\u{09}');
    expect(run.stdout).toContain('"a\\u{202E}b"');
    expect(readFileSync(zed, 'utf8')).not.toContain('alpha'); // a dry run
  });
});
