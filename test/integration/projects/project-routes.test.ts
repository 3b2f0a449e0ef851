import { existsSync, mkdirSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ListRootsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { projectsFilePath } from '../../../electron/core/projects/projects-file.ts';
import { ProjectsViewSchema, type ProjectsView } from '../../../shared/schema/projects.ts';
import { ProjectRoutes as UiRoutes } from '../../../shared/projects-api.ts';
import { runCli } from '../../helpers/cli.ts';
import { useHeadless } from '../../helpers/headless.ts';
import { fixtureServer } from '../../helpers/servers.ts';

/**
 * The UI's projects section through a real serve: an editor (a real SDK client) whose roots name a
 * folder with MCP files that is not a project gets that folder offered, never added; the control
 * API adds it (as `projects add`), shows its files with digests, its servers' states and the editors
 * working in it, and removes it again (its servers go).
 */

const setup = useHeadless({ perTest: true });

function repo(name: string): string {
  const dir = join(setup.t.dir, name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, '.mcp.json'),
    JSON.stringify({ mcpServers: { mini: fixtureServer('mini-server.mjs', '--tools=2') } }),
  );
  return realpathSync(dir);
}

async function api(path: string, init: { method?: string; body?: unknown } = {}): Promise<Response> {
  return fetch(`${setup.base}${path}`, {
    method: init.method ?? 'GET',
    headers: {
      authorization: `Bearer ${setup.headless.tokens.controlToken()}`,
      'content-type': 'application/json',
    },
    ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
  });
}

const view = async () => (await (await api(UiRoutes.projects)).json()) as ProjectsView;

async function editorIn(roots: string[]): Promise<Client> {
  const client = new Client({ name: 'editor', version: '1.0.0' }, { capabilities: { roots: {} } });
  client.setRequestHandler(ListRootsRequestSchema, async () => ({
    roots: roots.map((r) => ({ uri: pathToFileURL(r).href })),
  }));
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${setup.base}/mcp`), {
      requestInit: {
        headers: { Authorization: `Bearer ${setup.headless.tokens.ensure('test-editor')}` },
      },
    }),
  );
  setup.clients.push(client);
  return client;
}

describe('projects in the UI', () => {
  it('offers a folder an editor works in, never adds it itself; adding and removing go through the control API', async () => {
    const acme = repo('acme');
    const plain = join(setup.t.dir, 'plain');
    mkdirSync(plain);
    // The home folder with an .mcp.json of its own is never offered (its servers would get all of it).
    const home = setup.t.env.HOME ?? '';
    mkdirSync(home, { recursive: true });
    writeFileSync(join(home, '.mcp.json'), JSON.stringify({ mcpServers: { x: { command: 'true' } } }));
    await setup.start();
    const client = await editorIn([acme, plain, home]);

    await expect
      .poll(async () => (await view()).offers, { timeout: 10_000 })
      .toMatchObject([{ dir: acme, name: 'acme', files: ['.mcp.json'], editors: ['test-editor'] }]);
    expect((await view()).projects).toEqual([]);
    expect(existsSync(projectsFilePath(setup.t.home.root))).toBe(false);

    // A folder that holds the home is refused, with words that say why.
    const refused = await api(UiRoutes.projects, { method: 'POST', body: { dir: setup.t.dir } });
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as { error: string }).error).toMatch(/holds your home folder/);

    const added = await api(UiRoutes.projects, { method: 'POST', body: { dir: acme } });
    expect(added.status).toBe(200);
    const after = await view();
    expect(after.offers).toEqual([]);
    expect(after.projects).toHaveLength(1);
    expect(after.projects[0]).toMatchObject({
      name: 'acme',
      dir: acme,
      files: [{ file: join(acme, '.mcp.json') }],
      states: { 'acme--mini': 'pending-approval' },
    });
    expect(after.projects[0]?.files[0]?.digest).toMatch(/^[0-9a-f]{64}$/);

    // Approved, it runs, and the editor already working in the folder gets it on /mcp (its roots).
    await setup.approveRunning(['acme--mini']);
    await expect
      .poll(async () => (await client.listTools()).tools.some((t) => t.name.startsWith('acme--mini__')), {
        timeout: 10_000,
      })
      .toBe(true);
    await expect
      .poll(async () => (await view()).projects[0], { timeout: 10_000 })
      .toMatchObject({ states: { 'acme--mini': 'running' }, activeEditors: ['test-editor'] });

    const removed = await api(UiRoutes.project('acme'), { method: 'DELETE' });
    expect(removed.status).toBe(200);
    expect((await view()).projects).toEqual([]);
    await expect
      .poll(() => setup.headless.core.status.report().servers.some((s) => s.name === 'acme--mini'))
      .toBe(false);
    expect((await api(UiRoutes.project('acme'), { method: 'DELETE' })).status).toBe(404);
  });

  it('a folder the person declined is not offered again', async () => {
    const acme = repo('acme');
    await setup.start();
    await editorIn([acme]);
    await expect.poll(async () => (await view()).offers.length, { timeout: 10_000 }).toBe(1);
    const declined = await api(UiRoutes.offerDecline, { method: 'POST', body: { dir: acme } });
    expect(await declined.json()).toEqual({ declined: true });
    await editorIn([acme]);
    await new Promise((r) => setTimeout(r, 300));
    expect((await view()).offers).toEqual([]);
  });

  it('the folders offered are listed by `projects` and `status --json`, and "Not now" holds after a restart', async () => {
    const acme = repo('acme');
    const beta = repo('beta');
    await setup.start();
    await editorIn([acme]);
    await expect.poll(async () => (await view()).offers.length, { timeout: 10_000 }).toBe(1);

    const listed = await runCli(['projects', '--json'], setup.t.env);
    expect(listed.code).toBe(0);
    expect(ProjectsViewSchema.parse(JSON.parse(listed.stdout)).offers).toMatchObject([{ dir: acme }]);
    const text = await runCli(['projects'], setup.t.env);
    expect(text.stdout).toContain(`switchboard projects add ${acme}`);
    const status = await runCli(['status', '--json'], setup.t.env);
    expect((JSON.parse(status.stdout) as { offers?: unknown }).offers).toMatchObject([{ dir: acme }]);

    await api(UiRoutes.offerDecline, { method: 'POST', body: { dir: acme } });
    await setup.stop();
    await setup.start();
    // After the restart the editor works in both: only the folder not declined is offered.
    await editorIn([acme, beta]);
    await expect
      .poll(async () => (await view()).offers.map((o) => o.dir), { timeout: 10_000 })
      .toEqual([beta]);
    const after = await runCli(['projects', '--json'], setup.t.env);
    expect(ProjectsViewSchema.parse(JSON.parse(after.stdout)).offers.map((o) => o.dir)).toEqual([beta]);
  });
});
