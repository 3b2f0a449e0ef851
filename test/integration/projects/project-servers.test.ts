import { appendFileSync, copyFileSync, mkdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { addProject, removeProject } from '../../../electron/core/projects/projects-file.ts';
import { projectsFilePath } from '../../../electron/core/projects/projects-file.ts';
import { MemoryKeychain } from '../../../electron/core/secrets/keychain.ts';
import type { ProjectInfo } from '../../../shared/schema/projects.ts';
import { UiRoutes, type ApprovalView } from '../../../shared/ui-api.ts';
import { textOf } from '../../helpers/bridge.ts';
import { runCli } from '../../helpers/cli.ts';
import { useHeadless } from '../../helpers/headless.ts';
import { fixtureServer, isAlive, NODE, waitFor } from '../../helpers/servers.ts';

/**
 * A repository's .mcp.json through a real serve: its server waits for approval under the project's
 * name, runs sandboxed once approved, is offered on the project's route (/mcp/@<project>) and its own
 * endpoint but never on /mcp or another project's route, waits again when its entry changes (the old
 * process stopped), and is forgotten with the project.
 */

const setup = useHeadless({ perTest: true });

function repo(name: string, servers: Record<string, unknown>): string {
  const dir = join(setup.t.dir, name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, '.mcp.json'), JSON.stringify({ mcpServers: servers }));
  return realpathSync(dir);
}

function add(dir: string, name?: string): void {
  addProject(projectsFilePath(setup.t.home.root), dir, {
    ...(name ? { name } : {}),
    now: Date.now(),
    userHome: setup.t.env.HOME ?? '',
    switchboardHome: setup.t.home.root,
  });
}

interface ClaudeJson {
  mcpServers?: Record<string, unknown>;
  projects?: Record<
    string,
    {
      mcpServers?: Record<string, { url?: string }>;
      disabledMcpjsonServers?: string[];
      enabledMcpjsonServers?: string[];
    }
  >;
}

function claude(file: string): ClaudeJson {
  return JSON.parse(readFileSync(file, 'utf8')) as ClaudeJson;
}

async function toolNames(path: string): Promise<string[]> {
  const client = await setup.connect(path);
  return (await client.listTools()).tools.map((t) => t.name);
}

describe("a repository's servers", () => {
  it('are pending, then served only on their project route and own endpoint', async () => {
    setup.t.writeServers({ mcpServers: { mine: fixtureServer('mini-server.mjs', '--tools=2') } });
    const acme = repo('acme', { mini: fixtureServer('mini-server.mjs', '--tools=2') });
    // Another project with the same server name: two servers, no collision.
    const other = repo('other', { mini: fixtureServer('mini-server.mjs', '--tools=2') });
    add(acme);
    add(other);
    // Claude Code is set up here (its file exists): editor sync and the per-project settings write it.
    const claudeJson = join(setup.t.env.HOME ?? '', '.claude.json');
    mkdirSync(dirname(claudeJson), { recursive: true });
    writeFileSync(claudeJson, JSON.stringify({ projects: { [acme]: { enabledMcpjsonServers: ['mini'] } } }));
    const h = await setup.start();
    const states = () => new Map(h.core.status.report().servers.map((s) => [s.name, s.state]));
    expect(states().get('acme--mini')).toBe('pending-approval');
    expect(states().get('other--mini')).toBe('pending-approval');
    // The approval says which file and its digest.
    const shown = h.core.approvals.review('acme--mini');
    expect(shown.origin).toMatchObject({ project: 'acme', file: join(acme, '.mcp.json') });
    expect(shown.origin?.digest).toMatch(/^[0-9a-f]{64}$/);
    expect(shown.lines.join('\n')).toContain(`"write":["${acme}"]`);

    // The UI's approval card says so too.
    const cards = (await (
      await fetch(`${setup.base}${UiRoutes.approvals}`, {
        headers: { authorization: `Bearer ${h.tokens.controlToken()}` },
      })
    ).json()) as { approvals: ApprovalView[] };
    expect(cards.approvals.find((a) => a.name === 'acme--mini')?.origin).toEqual(shown.origin);
    expect(cards.approvals.find((a) => a.name === 'mine')?.origin).toBeUndefined();

    await setup.approveRunning(['mine', 'acme--mini', 'other--mini']);

    const plain = await toolNames('/mcp');
    expect(plain.some((n) => n.startsWith('mine__'))).toBe(true);
    expect(plain.some((n) => n.includes('--mini'))).toBe(false);

    const inAcme = await toolNames('/mcp/@acme');
    expect(inAcme.some((n) => n.startsWith('mine__'))).toBe(true);
    expect(inAcme.some((n) => n.startsWith('acme--mini__'))).toBe(true);
    expect(inAcme.some((n) => n.startsWith('other--mini__'))).toBe(false);

    expect((await toolNames('/mcp/acme--mini')).length).toBe(2);

    // Claude Code: the project server in acme's own per-project settings only, the repository's
    // .mcp.json server disabled there, and nothing of either project in its user-level servers.
    await expect
      .poll(() => claude(claudeJson).projects?.[acme]?.mcpServers?.['acme--mini']?.url)
      .toBe(`${setup.base}/mcp/acme--mini`);
    expect(claude(claudeJson).projects?.[acme]).toMatchObject({
      disabledMcpjsonServers: ['mini'],
      enabledMcpjsonServers: [],
    });
    expect(Object.keys(claude(claudeJson).projects?.[other]?.mcpServers ?? {})).toEqual(['other--mini']);
    await expect.poll(() => Object.keys(claude(claudeJson).mcpServers ?? {})).toEqual(['mine']);

    // `status --json`: each project, where its servers came from, who works in it now.
    const projectsNow = async () => {
      const out = await runCli(['status', '--json'], setup.t.env);
      return (JSON.parse(out.stdout) as { projects: ProjectInfo[] }).projects;
    };
    await expect
      .poll(async () => (await projectsNow()).find((p) => p.name === 'acme')?.activeEditors)
      .toEqual(['test-editor']);
    const [acmeInfo, otherInfo] = await projectsNow();
    expect(acmeInfo).toMatchObject({ dir: acme, endpoint: '/mcp/@acme', editors: ['claude-code'] });
    expect(acmeInfo?.servers.map((s) => [s.name, s.file])).toEqual([['acme--mini', join(acme, '.mcp.json')]]);
    expect(otherInfo?.activeEditors).toEqual([]);
  });

  it('a changed entry waits for approval again and its old process stops; removing the project forgets it', async () => {
    const acme = repo('acme', { mini: fixtureServer('mini-server.mjs', '--tools=2') });
    add(acme);
    const h = await setup.start();
    await setup.approveRunning(['acme--mini']);
    const pid = h.core.status.report().servers.find((s) => s.name === 'acme--mini')?.pid;
    expect(pid).toBeGreaterThan(0);

    writeFileSync(
      join(acme, '.mcp.json'),
      JSON.stringify({ mcpServers: { mini: fixtureServer('mini-server.mjs', '--tools=3') } }),
    );
    await waitFor(
      () =>
        h.core.status.report().servers.find((s) => s.name === 'acme--mini' && s.state === 'pending-approval'),
      30_000,
      'acme--mini pending again',
    );
    await waitFor(() => !isAlive(pid ?? 0) || undefined, 30_000, 'old process stopped');
    expect((await setup.connect('/mcp/@acme').then((c) => c.listTools())).tools).toEqual([]);

    // Approved again, then the project removed: stopped, and its approval gone.
    await setup.approveRunning(['acme--mini']);
    const pid2 = h.core.status.report().servers.find((s) => s.name === 'acme--mini')?.pid ?? 0;
    removeProject(projectsFilePath(setup.t.home.root), acme);
    await waitFor(() => !h.core.servers.entries().has('acme--mini') || undefined, 30_000, 'acme--mini gone');
    await waitFor(() => !isAlive(pid2) || undefined, 30_000, 'its process stopped');
    expect(h.core.state.approval('acme--mini')).toBeUndefined();
  });

  it('a changed entry waits for approval again also while servers.json has errors', async () => {
    setup.t.writeServers({ mcpServers: { mine: fixtureServer('mini-server.mjs', '--tools=2') } });
    const acme = repo('acme', { mini: fixtureServer('mini-server.mjs', '--tools=2') });
    add(acme);
    const h = await setup.start();
    await setup.approveRunning(['mine', 'acme--mini']);
    writeFileSync(setup.t.home.serversFile, '{"mcpServers": {"mine": ');
    await waitFor(() => h.core.servers.configError() ?? undefined, 30_000, 'servers.json error seen');
    writeFileSync(
      join(acme, '.mcp.json'),
      JSON.stringify({ mcpServers: { mini: fixtureServer('mini-server.mjs', '--tools=3') } }),
    );
    await waitFor(
      () =>
        h.core.status.report().servers.find((s) => s.name === 'acme--mini' && s.state === 'pending-approval'),
      30_000,
      'acme--mini pending again',
    );
    // The person's own server keeps running from the last good file.
    expect(h.core.status.report().servers.find((s) => s.name === 'mine')?.state).toBe('running');
  });

  it("a change to the repository's script it runs (its entry unchanged) waits for approval again", async () => {
    const acme = repo('acme', { mini: { command: NODE, args: ['./mini.mjs', '--tools=2'] } });
    copyFileSync(fixtureServer('mini-server.mjs').args[0] ?? '', join(acme, 'mini.mjs'));
    add(acme);
    const h = await setup.start();
    expect(h.core.approvals.review('acme--mini').lines.join('\n')).toMatch(
      /SWITCHBOARD_PROJECT_FILES=mini\.mjs:[0-9a-f]{24}\b/,
    );
    await setup.approveRunning(['acme--mini']);
    appendFileSync(join(acme, 'mini.mjs'), '\n// changed after approval\n');
    await waitFor(
      () =>
        h.core.status.report().servers.find((s) => s.name === 'acme--mini' && s.state === 'pending-approval'),
      30_000,
      'acme--mini pending after its script changed',
    );
  });

  it("a person's own server of the same full name stays theirs: on /mcp, with no project origin", async () => {
    setup.t.writeServers({ mcpServers: { 'acme--mini': fixtureServer('mini-server.mjs', '--tools=2') } });
    add(repo('acme', { mini: fixtureServer('mini-server.mjs', '--tools=3') }));
    const h = await setup.start();
    expect(h.core.approvals.review('acme--mini').origin).toBeUndefined();
    await setup.approveRunning(['acme--mini']);
    expect((await toolNames('/mcp')).filter((n) => n.startsWith('acme--mini__'))).toHaveLength(2);
  });

  it("a person's own server of the same full name stays theirs also while servers.json has errors", async () => {
    setup.t.writeServers({ mcpServers: { 'acme--mini': fixtureServer('mini-server.mjs', '--tools=2') } });
    add(repo('acme', { mini: fixtureServer('mini-server.mjs', '--tools=3') }));
    const h = await setup.start();
    await setup.approveRunning(['acme--mini']);
    const pid = h.core.status.report().servers.find((s) => s.name === 'acme--mini')?.pid ?? 0;
    expect(pid).toBeGreaterThan(0);
    writeFileSync(setup.t.home.serversFile, '{"mcpServers": {"acme--mini": ');
    await waitFor(() => h.core.servers.configError() ?? undefined, 30_000, 'servers.json error seen');
    // The last good file's server keeps running, not the project's entry of that name.
    expect(h.core.approvals.review('acme--mini').origin).toBeUndefined();
    expect(h.core.status.report().servers.find((s) => s.name === 'acme--mini')).toMatchObject({
      state: 'running',
      pid,
    });
    expect((await toolNames('/mcp')).filter((n) => n.startsWith('acme--mini__'))).toHaveLength(2);
  });

  it("a request for the person's variable waits for approval at once, and gets only the value given, never theirs", async () => {
    const echo = fixtureServer('env-echo-server.mjs', 'GITHUB_TOKEN');
    const acme = repo('acme', { gh: { ...echo, env: { GITHUB_TOKEN: '${GITHUB_TOKEN}' } } });
    add(acme);
    const h = await setup.start({ env: { ...setup.t.env, GITHUB_TOKEN: 'the-persons-own' } });
    const state = () => h.core.status.report().servers.find((s) => s.name === 'acme--gh');
    // Pending at once (no value needed to approve what runs); its approval asks for the value.
    expect(state()?.state).toBe('pending-approval');
    const secret = 'project.acme--gh.GITHUB_TOKEN';
    const shown = await h.core.approvals.preview('acme--gh');
    expect(shown.origin?.needs).toEqual([{ request: '${GITHUB_TOKEN}', secret }]);
    expect(shown.references.join('\n')).toContain(secret);
    // Said once, by the origin's needs (the card's value field), not again as a generic missing secret.
    expect(shown.willNotStart.join('\n')).not.toContain(secret);
    // The UI's list says the same.
    const listed = await fetch(`http://127.0.0.1:${h.port}${UiRoutes.approvals}`, {
      headers: { authorization: `Bearer ${h.tokens.controlToken()}` },
    });
    const card = ((await listed.json()) as { approvals: ApprovalView[] }).approvals.find(
      (a) => a.name === 'acme--gh',
    );
    expect(card?.origin?.needs).toEqual([{ request: '${GITHUB_TOKEN}', secret }]);
    expect(card?.willNotStart).toEqual([]);
    // And `switchboard approve`, with the command that gives it.
    const cli = await runCli(['approve', 'acme--gh'], setup.t.env);
    expect(cli.stdout).toContain(
      `  ! WILL NOT START until you give it the value its file asks for as \${GITHUB_TOKEN} (kept as its own keychain secret "${secret}"): printf %s VALUE | switchboard projects give acme--gh '\${GITHUB_TOKEN}'`,
    );
    expect(cli.stdout).not.toContain('switchboard secret set');

    // Approved before the value: it does not start (and never with the person's own variable).
    h.core.approvals.approve('acme--gh', shown.fingerprint);
    const waiting = await waitFor(
      () => (state()?.state === 'error' ? state() : undefined),
      30_000,
      'acme--gh waiting for its value',
    );
    expect(waiting?.lastError).toContain(secret);

    // Given as the UI gives it (the Projects row's and the approval card's field): it starts with that
    // value, with no second approval (its config did not change).
    await h.projects.give('acme--gh', '${GITHUB_TOKEN}', 'given-for-acme');
    await waitFor(() => (state()?.state === 'running' ? true : undefined), 30_000, 'acme--gh running');
    expect(h.core.approvals.review('acme--gh').fingerprint).toBe(shown.fingerprint);
    expect(h.core.approvals.review('acme--gh').origin?.needs).toEqual([]);
    const client = await setup.connect('/mcp/acme--gh');
    expect(textOf(await client.callTool({ name: 'read-env', arguments: {} }))).toBe('given-for-acme');
  });

  it("a project added starts with no values: one left in the keychain under its servers' secrets is deleted", async () => {
    const echo = fixtureServer('env-echo-server.mjs', 'GITHUB_TOKEN');
    const keychain = new MemoryKeychain();
    // Left by an earlier project of the same name (removed while the keychain could not be reached).
    await keychain.set('project.acme--gh.GITHUB_TOKEN', 'left-over');
    await keychain.set('project.beta--gh.GITHUB_TOKEN', 'left-over');
    await keychain.set('mine', 'the-persons-own');
    const h = await setup.start({ keychain });
    // Added as the UI adds it.
    await h.projects.add(repo('acme', { gh: { ...echo, env: { GITHUB_TOKEN: '${GITHUB_TOKEN}' } } }));
    expect(await keychain.get('project.acme--gh.GITHUB_TOKEN')).toBeUndefined();
    // Added with the CLI while serve runs.
    const beta = repo('beta', { gh: { ...echo, env: { GITHUB_TOKEN: '${GITHUB_TOKEN}' } } });
    const added = await runCli(['projects', 'add', beta], setup.t.env);
    expect(added.code, added.stderr).toBe(0);
    expect(await keychain.get('project.beta--gh.GITHUB_TOKEN')).toBeUndefined();
    expect(await keychain.get('mine')).toBe('the-persons-own');
    // Approved, it waits for its value instead of starting with the old one.
    h.core.approvals.approve('acme--gh', h.core.approvals.review('acme--gh').fingerprint);
    await waitFor(
      () => h.core.status.report().servers.find((s) => s.name === 'acme--gh' && s.state === 'error'),
      30_000,
      'acme--gh waiting for its value',
    );
  });

  it('`projects add` without serve turns the .mcp.json servers off in Claude Code; with serve, its files are followed', async () => {
    const acme = repo('acme', { mini: fixtureServer('mini-server.mjs', '--tools=2') });
    const claudeJson = join(setup.t.env.HOME ?? '', '.claude.json');
    mkdirSync(dirname(claudeJson), { recursive: true });
    writeFileSync(claudeJson, JSON.stringify({ projects: { [acme]: { enabledMcpjsonServers: ['mini'] } } }));
    const added = await runCli(['projects', 'add', acme], setup.t.env);
    expect(added.code, added.stderr).toBe(0);
    expect(added.stdout).toContain('acme--mini  pending-approval');
    expect(claude(claudeJson).projects?.[acme]).toMatchObject({
      disabledMcpjsonServers: ['mini'],
      enabledMcpjsonServers: [],
    });
    await runCli(['projects', 'rm', 'acme'], setup.t.env);

    // Added while serve runs: picked up, and its folder followed.
    const h = await setup.start();
    expect(h.core.servers.entries().has('acme--mini')).toBe(false);
    expect((await runCli(['projects', 'add', acme], setup.t.env)).code).toBe(0);
    const first = await waitFor(
      () => h.core.servers.entries().get('acme--mini')?.fingerprint,
      30_000,
      'acme--mini',
    );
    writeFileSync(
      join(acme, '.mcp.json'),
      JSON.stringify({ mcpServers: { mini: fixtureServer('mini-server.mjs', '--tools=4') } }),
    );
    await waitFor(
      () => (h.core.servers.entries().get('acme--mini')?.fingerprint ?? first) !== first || undefined,
      30_000,
      'the changed entry read',
    );
  });

  it('a project added in the UI: its files are followed, a change made at once and later ones', async () => {
    const h = await setup.start();
    const acme = repo('acme', { mini: fixtureServer('mini-server.mjs', '--tools=2') });
    await h.projects.add(acme);
    const fingerprint = () => h.core.servers.entries().get('acme--mini')?.fingerprint;
    let last = fingerprint();
    expect(last).toBeDefined();
    for (const tools of [3, 4]) {
      writeFileSync(
        join(acme, '.mcp.json'),
        JSON.stringify({ mcpServers: { mini: fixtureServer('mini-server.mjs', `--tools=${tools}`) } }),
      );
      const before = last;
      last = await waitFor(
        () => (fingerprint() !== before ? fingerprint() : undefined),
        30_000,
        `the entry with --tools=${tools} read`,
      );
    }
  });

  it('removing a project takes its Claude Code per-project entries out again', async () => {
    const acme = repo('acme', { mini: fixtureServer('mini-server.mjs', '--tools=2') });
    add(acme);
    const claudeJson = join(setup.t.env.HOME ?? '', '.claude.json');
    mkdirSync(dirname(claudeJson), { recursive: true });
    writeFileSync(claudeJson, JSON.stringify({ projects: { [acme]: { enabledMcpjsonServers: ['mini'] } } }));
    await setup.start();
    await setup.approveRunning(['acme--mini']);
    await expect.poll(() => claude(claudeJson).projects?.[acme]?.mcpServers?.['acme--mini']).toBeDefined();
    removeProject(projectsFilePath(setup.t.home.root), acme);
    await expect
      .poll(() => claude(claudeJson).projects?.[acme])
      .toEqual({ mcpServers: {}, disabledMcpjsonServers: [], enabledMcpjsonServers: ['mini'] });
  });
});
