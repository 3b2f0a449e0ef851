import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { EDITORS } from '../../electron/core/editors/registry.ts';
import { addProject, projectsFilePath } from '../../electron/core/projects/projects-file.ts';
import { MemoryKeychain } from '../../electron/core/secrets/keychain.ts';
import { userDirs } from '../../electron/core/user-dirs.mjs';
import { startHeadless, type Headless } from '../../electron/headless/serve.ts';
import { fixtureServer, NODE, waitFor } from '../helpers/servers.ts';
import { tempHome, type TempHome } from '../helpers/temp-home.ts';
import { clientBin, QUIET_ENV, run } from './clients.ts';

// The real Claude Code (test/clients/package.json), run in a repository whose .mcp.json names a
// server and whose committed .claude/settings.json enables every such server: without Switchboard
// it starts that server itself; once the folder is a Switchboard project, it gets the approved
// server from Switchboard's bridge (its per-project entry in ~/.claude.json) and starts no copy.

const installed = existsSync(clientBin('claude'));

describe.skipIf(!installed)("Claude Code in a project's folder", () => {
  let t: TempHome | undefined;
  let h: Headless | undefined;
  afterAll(async () => {
    await h?.stop();
    t?.cleanup();
  });

  it("sees the project's server through Switchboard and does not start its own copy", async () => {
    t = tempHome();
    const claudeJson = EDITORS['claude-code'].file(userDirs(t.env));
    const acme = join(t.dir, 'acme');
    mkdirSync(join(acme, '.claude'), { recursive: true });
    const dir = realpathSync(acme);
    // Each start of the server (by anyone) writes its pid here.
    const pids = join(dir, 'pids.json');
    const mini = fixtureServer('mini-server.mjs', `--pids-file=${pids}`);
    writeFileSync(
      join(dir, '.mcp.json'),
      JSON.stringify({ mcpServers: { mini: { command: NODE, args: mini.args } } }),
    );
    writeFileSync(
      join(dir, '.claude', 'settings.json'),
      JSON.stringify({ enableAllProjectMcpServers: true }),
    );
    mkdirSync(dirname(claudeJson), { recursive: true });
    writeFileSync(
      claudeJson,
      JSON.stringify({
        hasCompletedOnboarding: true,
        autoUpdates: false,
        projects: { [dir]: { hasTrustDialogAccepted: true } },
      }),
    );
    const env = { ...t.env, ...QUIET_ENV, ANTHROPIC_API_KEY: 'fake' };
    const claudeMcpList = async () =>
      (await run(clientBin('claude'), ['mcp', 'list'], { env, cwd: dir })).output;

    // Without Switchboard: Claude Code runs the repository's server itself.
    const alone = await claudeMcpList();
    expect(alone).toMatch(/^mini: .*Connected/m);
    expect(existsSync(pids)).toBe(true);
    rmSync(pids);

    addProject(projectsFilePath(t.home.root), dir, {
      now: Date.now(),
      userHome: t.env.HOME ?? '',
      switchboardHome: t.home.root,
    });
    h = await startHeadless({
      home: t.home,
      keychain: new MemoryKeychain(),
      env: t.env,
      port: 0,
      editorSync: { log: () => {} },
    });
    const core = h.core;
    core.approvals.approve('acme--mini', core.approvals.review('acme--mini').fingerprint);
    await waitFor(
      () => core.status.report().servers.find((s) => s.name === 'acme--mini' && s.state === 'running'),
      60_000,
      'acme--mini running',
    );
    await waitFor(
      () => readFileSync(claudeJson, 'utf8').includes('/mcp/acme--mini'),
      15_000,
      'entry written',
    );
    const started = readFileSync(pids, 'utf8'); // Switchboard's copy, in its sandbox

    const through = await claudeMcpList();
    expect(through).toMatch(/^acme--mini: http:\/\/127\.0\.0\.1:\d+\/mcp\/acme--mini .*Connected/m);
    expect(through).not.toMatch(/^mini:/m);
    expect(readFileSync(pids, 'utf8')).toBe(started); // no second start
  }, 180_000);
});

// Discovery mode (one `switchboard` entry with find_tools and call_tool): in a project's folder,
// Claude Code's local settings get that one entry on the project route (/mcp/@<project>), ranked over
// its user-level `switchboard` on /mcp, so the project's servers are found there and nowhere else.
// Its tool call goes to the fake model (test/fixtures/fake-model.mjs), which calls find_tools.
describe.skipIf(!installed)("Claude Code in discovery mode in a project's folder", () => {
  let t: TempHome | undefined;
  let h: Headless | undefined;
  let model: ChildProcess | undefined;
  afterAll(async () => {
    model?.kill('SIGTERM');
    await h?.stop();
    t?.cleanup();
  });

  it("lists the project's server through its one entry on the project route, and only in the folder", async () => {
    t = tempHome();
    const claudeJson = EDITORS['claude-code'].file(userDirs(t.env));
    mkdirSync(join(t.dir, 'acme'), { recursive: true });
    const dir = realpathSync(join(t.dir, 'acme'));
    writeFileSync(
      join(dir, '.mcp.json'),
      JSON.stringify({ mcpServers: { mini: fixtureServer('mini-server.mjs', '--tools=2') } }),
    );
    t.writeServers({ mcpServers: { mine: fixtureServer('mini-server.mjs', '--tools=2') } });
    mkdirSync(dirname(claudeJson), { recursive: true });
    writeFileSync(
      claudeJson,
      JSON.stringify({
        hasCompletedOnboarding: true,
        autoUpdates: false,
        projects: { [dir]: { hasTrustDialogAccepted: true }, [t.dir]: { hasTrustDialogAccepted: true } },
      }),
    );
    addProject(projectsFilePath(t.home.root), dir, {
      now: Date.now(),
      userHome: t.env.HOME ?? '',
      switchboardHome: t.home.root,
    });
    h = await startHeadless({
      home: t.home,
      keychain: new MemoryKeychain(),
      env: t.env,
      port: 0,
      editorSync: { log: () => {} },
    });
    const core = h.core;
    for (const name of ['mine', 'acme--mini'])
      core.approvals.approve(name, core.approvals.review(name).fingerprint);
    await waitFor(
      () =>
        ['mine', 'acme--mini'].every((name) =>
          core.status.report().servers.some((s) => s.name === name && s.state === 'running'),
        ) || undefined,
      60_000,
      'mine and acme--mini running',
    );
    // Discovery mode on, as the Editors view turns it on.
    const base = `http://127.0.0.1:${h.port}`;
    const res = await fetch(`${base}/api/editors/claude-code/tools`, {
      method: 'POST',
      headers: { authorization: `Bearer ${h.tokens.controlToken()}`, 'content-type': 'application/json' },
      body: JSON.stringify({ discovery: true }),
    });
    expect(res.status).toBe(200);
    const settings = () =>
      JSON.parse(readFileSync(claudeJson, 'utf8')) as {
        mcpServers?: Record<string, { url?: string }>;
        projects?: Record<string, { mcpServers?: Record<string, { url?: string }> }>;
      };
    await waitFor(
      () =>
        (settings().projects?.[dir]?.mcpServers?.switchboard?.url === `${base}/mcp/@acme` &&
          Object.keys(settings().mcpServers ?? {}).join() === 'switchboard') ||
        undefined,
      15_000,
      'the one entry, and the project route in the folder',
    );

    model = spawn(process.execPath, [fileURLToPath(new URL('../fixtures/fake-model.mjs', import.meta.url))], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const modelPort = await new Promise<string>((resolve) =>
      createInterface({ input: model?.stdout ?? process.stdin }).once('line', resolve),
    );
    const env = {
      ...t.env,
      ...QUIET_ENV,
      ANTHROPIC_BASE_URL: `http://127.0.0.1:${modelPort.trim()}`,
      ANTHROPIC_API_KEY: 'fake',
      // Claude Code otherwise defers MCP tools behind a search tool the fake model does not use.
      ENABLE_TOOL_SEARCH: 'false',
    };
    const claude = (args: string[], cwd: string) => run(clientBin('claude'), args, { env, cwd });
    const findTools = ['-p', 'find tools', '--allowedTools', 'mcp__switchboard__find_tools'];

    // In the folder: its one entry is the project route, and find_tools there finds the project's
    // server beside the person's own.
    const listed = await claude(['mcp', 'list'], dir);
    expect(listed.output).toMatch(
      new RegExp(`^switchboard: ${base.replace(/\./g, '\\.')}/mcp/@acme .*Connected`, 'm'),
    );
    expect(listed.output).not.toMatch(/^(acme--mini|mini|mine):/m);
    const inside = await claude([...findTools, '--model', 'claude-opus-4-5'], dir);
    expect(inside.output, inside.output).toMatch(/TOOL SAID:[\s\S]*acme--mini__tool-1/);
    expect(inside.output).toContain('mine__tool-1');

    // In its parent: the user-level entry on /mcp, which does not offer the project's server.
    const outsideListed = await claude(['mcp', 'list'], t.dir);
    expect(outsideListed.output).toMatch(
      new RegExp(`^switchboard: ${base.replace(/\./g, '\\.')}/mcp .*Connected`, 'm'),
    );
    const outside = await claude([...findTools, '--model', 'claude-opus-4-5'], t.dir);
    expect(outside.output, outside.output).toMatch(/TOOL SAID:[\s\S]*mine__tool-1/);
    expect(outside.output).not.toContain('acme--mini__');
  }, 240_000);
});
