import { describe, expect, it } from 'vitest';
import { StatusReportSchema } from '../../../shared/status.ts';
import { textOf } from '../../helpers/bridge.ts';
import { runCli } from '../../helpers/cli.ts';
import { useHeadless } from '../../helpers/headless.ts';
import { defined, fixtureServer } from '../../helpers/servers.ts';

// Per-call activity: every tool call an editor makes through the bridge, counted per server, tool and
// editor over the last hour, in `switchboard status --json` of the running instance.

const setup = useHeadless({ perTest: true });

describe('per-call activity', () => {
  it('counts calls, errors and latency per server, tool and editor, and shows them in status --json', async () => {
    setup.t.writeServers({ mcpServers: { echo: fixtureServer('env-echo-server.mjs') } });
    await setup.start({ editorSync: false });
    await setup.approveRunning(['echo']);
    const zed = await setup.connect('/mcp/echo', 'zed');
    const cursor = await setup.connect('/mcp', 'cursor');

    for (const ms of [1, 2, 200]) await zed.callTool({ name: 'sleep', arguments: { ms } });
    expect(textOf(await cursor.callTool({ name: 'echo__read-env', arguments: {} }))).toBe('');
    await cursor.callTool({ name: 'echo__sleep', arguments: { ms: 1 } });
    // A call the server answers with an error (its arguments do not match the tool's schema).
    const failed = await zed.callTool({ name: 'add-tool', arguments: {} });
    expect(failed.isError).toBe(true);
    // Listing is not a call.
    await zed.listTools();

    const status = await runCli(['status', '--json'], setup.t.env);
    expect(status.code).toBe(0);
    const report = StatusReportSchema.parse(JSON.parse(status.stdout));
    const echo = defined(report.activity?.echo, 'activity of echo');
    expect(echo).toMatchObject({ calls: 6, errors: 1 });
    expect(echo.tools).toEqual([
      expect.objectContaining({ name: 'sleep', calls: 4, errors: 0 }),
      expect.objectContaining({ name: 'add-tool', calls: 1, errors: 1 }),
      expect.objectContaining({ name: 'read-env', calls: 1, errors: 0 }),
    ]);
    expect(echo.editors).toEqual([
      expect.objectContaining({ name: 'zed', calls: 4, errors: 1 }),
      expect.objectContaining({ name: 'cursor', calls: 2, errors: 0 }),
    ]);
    // A call that slept 200 ms cannot have taken less (percentiles are within 5 %).
    expect(defined(echo.p99Ms, 'p99')).toBeGreaterThanOrEqual(190);
    expect(defined(echo.p50Ms, 'p50')).toBeLessThan(defined(echo.p99Ms, 'p99'));
    expect(echo.minutes).toHaveLength(60);
    expect(echo.minutes.reduce((n, m) => n + m.calls, 0)).toBe(6);
    expect(echo.minutes.at(-1)?.at).toBeLessThanOrEqual(Date.now());
  });
});
