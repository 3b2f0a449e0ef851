import { mkdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { addProject, projectsFilePath } from '../../../electron/core/projects/projects-file.ts';
import { runCli } from '../../helpers/cli.ts';
import { useHeadless } from '../../helpers/headless.ts';
import { fixtureServer } from '../../helpers/servers.ts';

/**
 * A project server is its project file's entry, not servers.json's: the commands and UI routes that
 * edit servers.json (remove, disable, grant, its config and tool filter) refuse it with words that
 * say which file it comes from and what to do, and change nothing.
 */
const setup = useHeadless({ perTest: true });

async function api(path: string, method: string, body?: unknown): Promise<{ status: number; error: string }> {
  const res = await fetch(`${setup.base}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${setup.headless.tokens.controlToken()}`,
      'content-type': 'application/json',
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, error: ((await res.json()) as { error?: string }).error ?? '' };
}

describe("editing servers.json does not apply to a project's servers", () => {
  it('remove, disable, grant, edit and tool filters say where the server comes from and what to do', async () => {
    setup.t.writeServers({ mcpServers: { mine: fixtureServer('mini-server.mjs', '--tools=1') } });
    const dir = join(setup.t.dir, 'acme');
    mkdirSync(dir);
    const mcpJson = join(realpathSync(dir), '.mcp.json');
    writeFileSync(mcpJson, JSON.stringify({ mcpServers: { mini: fixtureServer('mini-server.mjs') } }));
    addProject(projectsFilePath(setup.t.home.root), dir, {
      now: Date.now(),
      userHome: setup.t.env.HOME ?? '',
      switchboardHome: setup.t.home.root,
    });
    const serversBefore = readFileSync(setup.t.home.serversFile, 'utf8');
    await setup.start();
    await setup.approveRunning(['acme--mini']);

    const saysWhere = (text: string) => {
      expect(text).toContain(`"acme--mini" comes from ${mcpJson} (the project "acme")`);
      expect(text).toContain('switchboard projects rm acme');
    };
    const removed = await runCli(['remove', 'acme--mini'], setup.t.env);
    expect(removed.code).not.toBe(0);
    saysWhere(removed.stderr);
    const granted = await runCli(['grant', 'acme--mini', 'read', setup.t.dir], setup.t.env);
    expect(granted.code).not.toBe(0);
    saysWhere(granted.stderr);
    expect(granted.stderr).toContain("its sandbox is the project's folder");

    for (const [path, method, body] of [
      ['/api/servers/acme--mini', 'DELETE', undefined],
      ['/api/servers/acme--mini/enabled', 'POST', { enabled: false }],
      ['/api/servers/acme--mini/grant', 'POST', { access: 'read', path: setup.t.dir }],
      ['/api/servers/acme--mini/config', 'GET', undefined],
      ['/api/servers/acme--mini/tools', 'POST', { filter: { exclude: ['tool-1'] } }],
    ] as const) {
      const answer = await api(path, method, body);
      expect(answer.status, `${method} ${path}`).toBe(409);
      saysWhere(answer.error);
    }
    const disabled = await api('/api/servers/acme--mini/enabled', 'POST', { enabled: false });
    expect(disabled.error).toContain('switchboard stop acme--mini');

    // Nothing was changed: servers.json as it was, the project server still running.
    expect(readFileSync(setup.t.home.serversFile, 'utf8')).toBe(serversBefore);
    expect(setup.headless.core.status.report().servers.find((s) => s.name === 'acme--mini')?.state).toBe(
      'running',
    );
    // A server of nobody's is still "no server named".
    expect((await runCli(['remove', 'nobody'], setup.t.env)).stderr).toMatch(/no server named "nobody"/);
  });
});
