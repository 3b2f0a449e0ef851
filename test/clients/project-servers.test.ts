import { existsSync, mkdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
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
