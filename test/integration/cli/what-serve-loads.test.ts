import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { sandboxSupportFor } from '../../../electron/core/sandbox/support.ts';
import { StatusReportSchema } from '../../../shared/status.ts';
import { BIN, exited, runCli } from '../../helpers/cli.ts';
import { startNpmRegistry } from '../../helpers/npm-registry.ts';
import { fixtureServer, HANG_MS, NODE, waitFor } from '../../helpers/servers.ts';
import { tempHome, type TempHome } from '../../helpers/temp-home.ts';

// Issue 24 item 18 (the core ≤ 100 MB): Node's undici (fetch) is ~14 MB of a serve's resident memory
// for the life of the process, and an ES import of node:http anywhere in the core loads all of it
// (core/node-http.ts says why). The sandbox's network proxy once brought such an import back, and
// `outdated`'s look at the registry (store/npm-registry-view.ts) once did it with `fetch`.
const support = sandboxSupportFor(process.platform, process.env.PATH);
const filtered = support.engine?.kind === 'bwrap' && support.networkFilter !== null;

let t: TempHome;
let serve: ChildProcess | undefined;

beforeEach(() => {
  t = tempHome();
});

/** `switchboard serve` recording at exit which of Node's own modules it loaded (read once it exited). */
function serveRecordingLoads(env: NodeJS.ProcessEnv): { child: ChildProcess; loaded: () => string[] } {
  const loadedFile = join(t.dir, 'loaded.json');
  const probe = join(t.dir, 'probe.mjs');
  writeFileSync(
    probe,
    `import { writeFileSync } from 'node:fs';\n` +
      `process.on('exit', () => writeFileSync(${JSON.stringify(loadedFile)}, JSON.stringify(process.moduleLoadList)));\n`,
  );
  const child = spawn(NODE, ['--import', probe, BIN, 'serve', '--port', '0'], { env, stdio: 'ignore' });
  return { child, loaded: () => JSON.parse(readFileSync(loadedFile, 'utf8')) as string[] };
}

afterEach(async () => {
  if (serve && serve.exitCode === null && serve.signalCode === null) {
    serve.kill('SIGTERM');
    await exited(serve);
  }
  t.cleanup();
});

it.skipIf(!filtered)(
  'serve running a sandboxed server behind its network proxy never loads undici',
  async () => {
    t.writeServers({ mcpServers: { echo: fixtureServer('env-echo-server.mjs') } });
    const approve = await runCli(['approve', 'echo', '--yes'], t.env);
    expect(approve.code, approve.stderr).toBe(0);
    const { child, loaded } = serveRecordingLoads(t.env);
    serve = child;
    // A new home: the server runs once (in bubblewrap, its proxy listening) to learn its tools.
    const ran = await waitFor(
      async () => {
        const r = await runCli(['status', '--json'], t.env);
        if (r.code !== 0) return undefined;
        const report = StatusReportSchema.parse(JSON.parse(r.stdout));
        return report.live && report.servers.find((s) => s.name === 'echo' && s.toolCount !== null);
      },
      HANG_MS,
      'the server to run once',
    );
    expect(ran.access).toMatch(/^sandboxed; .*network: /);
    child.kill('SIGTERM');
    await exited(child);
    expect(loaded()).toContain('NativeModule http'); // the proxy and the bridge use it
    expect(loaded().filter((m) => m.includes('undici'))).toEqual([]);
  },
  HANG_MS,
);

it(
  "serve answering `outdated` from the registry's packuments never loads undici",
  async () => {
    const registry = await startNpmRegistry();
    try {
      const fixtures = join(import.meta.dirname, '../../fixtures/store');
      await registry.publish(join(fixtures, 'sb-store-dep'));
      await registry.publish(join(fixtures, 'sb-store-pkg'));
      const env = { ...t.env, ...registry.npmEnv(join(t.dir, 'npm-cache')) };
      // Approved, never started: only the check runs.
      t.writeServers({
        mcpServers: { pkg: { command: 'npx', args: ['-y', 'sb-store-pkg'], enabled: false } },
      });
      const approve = await runCli(['approve', 'pkg', '--yes'], env);
      expect(approve.code, approve.stderr).toBe(0);
      const { child, loaded } = serveRecordingLoads(env);
      serve = child;
      await waitFor(
        async () => {
          const r = await runCli(['status', '--json'], env);
          return r.code === 0 && StatusReportSchema.parse(JSON.parse(r.stdout)).live;
        },
        HANG_MS,
        'serve to answer',
      );
      await registry.publishAs(join(fixtures, 'sb-store-dep'), '1.0.1');
      const asked = registry.requests.length;
      const outdated = await runCli(['outdated'], env);
      expect(outdated.code, outdated.stderr).toBe(0);
      expect(outdated.stdout).toContain('sb-store-dep 1.0.0 → 1.0.1');
      // serve itself read the packuments (its quick look), not only npm in the batch child
      expect(registry.requests.slice(asked)).toContain('GET /sb-store-dep');
      child.kill('SIGTERM');
      await exited(child);
      expect(loaded().filter((m) => m.includes('undici'))).toEqual([]);
    } finally {
      await registry.close();
    }
  },
  HANG_MS * 2,
);
