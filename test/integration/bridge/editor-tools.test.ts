import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Headless } from '../../../electron/headless/serve.ts';
import { EditorToolsViewSchema, type EditorToolsView } from '../../../shared/editor-tools.ts';
import { textOf } from '../../helpers/bridge.ts';
import { runCli } from '../../helpers/cli.ts';
import { useHeadless } from '../../helpers/headless.ts';
import { call } from '../../helpers/http.ts';
import { fixtureServer, waitFor } from '../../helpers/servers.ts';

// Per-editor tool selection, on top of the editor's server selection: enforced at the bridge for that
// editor's token only, on /mcp/<server> and /mcp; names shortened for a client with a name limit
// (Cursor: server + tool under 60 characters) and still calling their own tool; the editor's view of
// counts, estimated tokens, limits and warnings; the CLI. Real server, real bridge, real SDK clients.

const LONG = 'create_or_update_a_pull_request_review_comment_on_a_single_file';

const setup = useHeadless({ perTest: true });

async function serve(): Promise<Headless> {
  const toolsFile = join(setup.t.dir, 'tools.json');
  const tools = [{ name: 'search_code' }, { name: 'delete_repo' }, { name: 'read' }, { name: LONG }];
  writeFileSync(toolsFile, JSON.stringify(tools));
  setup.t.writeServers({ mcpServers: { gh: fixtureServer('shifty-server.mjs', toolsFile) } });
  const h = await setup.start({ editorSync: false });
  await setup.approveRunning(['gh']);
  return h;
}

async function api(h: Headless, method: string, path: string, body?: unknown): Promise<EditorToolsView> {
  const res = await call(h.port, method, path, {
    headers: { authorization: `Bearer ${h.tokens.controlToken()}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  expect(res.status, res.text).toBe(200);
  return EditorToolsViewSchema.parse(JSON.parse(res.text));
}

const names = async (client: Client) => (await client.listTools()).tools.map((tool) => tool.name).sort();

describe('per-editor tool selection', () => {
  it('is enforced at the bridge for that editor’s token only, on /mcp/<server> and /mcp', async () => {
    const h = await serve();
    const cursor = await setup.connect('/mcp/gh', 'cursor');
    const cursorAll = await setup.connect('/mcp', 'cursor');
    const vscode = await setup.connect('/mcp/gh', 'vscode');
    let told = 0;
    cursor.setNotificationHandler(ToolListChangedNotificationSchema, () => void told++);
    await new Promise((r) => setTimeout(r, 300)); // let the GET stream open

    const view = await api(h, 'POST', '/api/editors/cursor/tools', {
      server: 'gh',
      tool: 'delete_repo',
      on: false,
    });
    expect(view.servers[0]?.tools.find((x) => x.name === 'delete_repo')).toMatchObject({
      on: false,
      why: 'editor-selection',
    });
    await waitFor(() => told > 0, 10_000, 'list_changed to cursor');

    expect(await names(cursor)).not.toContain('delete_repo');
    expect((await names(cursorAll)).some((n) => n.includes('delete_repo'))).toBe(false);
    await expect(cursor.callTool({ name: 'delete_repo', arguments: {} })).rejects.toThrow(
      /not among the tools Switchboard gives Cursor/,
    );
    await expect(cursorAll.callTool({ name: 'gh__delete_repo', arguments: {} })).rejects.toThrow(
      /not among the tools Switchboard gives Cursor/,
    );
    // Another editor's token is untouched.
    expect(await names(vscode)).toContain('delete_repo');
    expect(textOf(await vscode.callTool({ name: 'delete_repo', arguments: {} }))).toBe(
      'delete_repo answered',
    );

    // A selection by globs: only search* for Cursor.
    await api(h, 'POST', '/api/editors/cursor/tools', { server: 'gh', selection: { include: ['search*'] } });
    await waitFor(async () => (await names(cursor)).join() === 'search_code', 10_000, 'only search_code');
    // Back to every tool.
    await api(h, 'POST', '/api/editors/cursor/tools', { server: 'gh', selection: null });
    await waitFor(async () => (await names(cursor)).includes('delete_repo'), 10_000, 'every tool again');
  });

  it('shortens names for Cursor’s 60-character limit, and a shortened name calls its own tool', async () => {
    const h = await serve();
    const cursor = await setup.connect('/mcp/gh', 'cursor');
    const vscode = await setup.connect('/mcp/gh', 'vscode');
    const shortName = (await names(cursor)).find((n) => n.startsWith('create_or_update'));
    expect(shortName).toBeDefined();
    expect(('gh' + (shortName ?? '')).length).toBeLessThan(60);
    expect(textOf(await cursor.callTool({ name: shortName ?? '', arguments: {} }))).toBe(`${LONG} answered`);
    // Its long name is not Cursor's: Cursor would have filtered it out.
    await expect(cursor.callTool({ name: LONG, arguments: {} })).rejects.toThrow(/Unknown tool/);
    expect(await names(vscode)).toContain(LONG);
    // Activity records the tool's own name, whichever name the client used.
    expect(h.core.activity.calledBy('cursor').get('gh')).toEqual(new Set([LONG]));

    const view = await api(h, 'GET', '/api/editors/cursor/tools');
    expect(view.shortened).toBe(1);
    expect(view.servers[0]?.tools.find((x) => x.name === LONG)?.exposed).toBe(shortName);
    expect(view.calledLastHour).toBe(1);
  });

  it('shows what an editor gets and costs, warns before its client’s limit, and the CLI changes it', async () => {
    const h = await serve();
    const view = await api(h, 'GET', '/api/editors/cursor/tools');
    // reload + 4 tools; Cursor works best under 40: no warning about the count yet.
    expect(view.current.tools).toBe(5);
    expect(view.current.tokens).toBeGreaterThan(0);
    expect(view.limits.tools).toMatchObject({ count: 40, hard: false });
    expect(view.warnings.filter((w) => w.level !== 'info')).toEqual([]);
    expect(view.costs.discovery.tools).toBe(2);

    const off = await runCli(
      ['editors', 'tools', 'cursor', 'gh', '--off', 'delete_repo', '--off', 'read'],
      setup.t.env,
    );
    expect(off.code, off.stderr).toBe(0);
    expect(off.stdout).toMatch(/Cursor: 3 tools \(works best under 40\)/);
    expect(off.stdout).toMatch(/delete_repo\s+no: not selected/);
    const json = await runCli(['editors', 'tools', 'cursor', '--json'], setup.t.env);
    const parsed = EditorToolsViewSchema.parse(JSON.parse(json.stdout));
    expect(parsed.current.tools).toBe(3);
    expect(h.core.state.editorSettings('cursor').tools).toEqual({ gh: { exclude: ['delete_repo', 'read'] } });

    const bad = await runCli(['editors', 'tools', 'cursor', '--off', 'x'], setup.t.env);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/name the server/);
  });
});
