import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { sandboxSupportFor } from '../../../electron/core/sandbox/support.ts';
import { StatusReportSchema } from '../../../shared/status.ts';
import { BIN, exited, runCli } from '../../helpers/cli.ts';
import { fixtureServer, HANG_MS, NODE, waitFor } from '../../helpers/servers.ts';
import { tempHome, type TempHome } from '../../helpers/temp-home.ts';

// Issue 24 item 18 (the core ≤ 100 MB): Node's undici (fetch) is ~14 MB of a serve's resident memory
// for the life of the process, and an ES import of node:http anywhere in the core loads all of it
// (core/node-http.ts says why). The sandbox's network proxy once brought such an import back.
const support = sandboxSupportFor(process.platform, process.env.PATH);
const filtered = support.engine?.kind === 'bwrap' && support.networkFilter !== null;

let t: TempHome;
let serve: ChildProcess | undefined;

beforeEach(() => {
  t = tempHome();
});

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
    const loadedFile = join(t.dir, 'loaded.json');
    const probe = join(t.dir, 'probe.mjs');
    // Records at exit which of Node's own modules this process loaded.
    writeFileSync(
      probe,
      `import { writeFileSync } from 'node:fs';\n` +
        `process.on('exit', () => writeFileSync(${JSON.stringify(loadedFile)}, JSON.stringify(process.moduleLoadList)));\n`,
    );
    const child = spawn(NODE, ['--import', probe, BIN, 'serve', '--port', '0'], {
      env: t.env,
      stdio: 'ignore',
    });
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
    const loaded = JSON.parse(readFileSync(loadedFile, 'utf8')) as string[];
    expect(loaded).toContain('NativeModule http'); // the proxy and the bridge use it
    expect(loaded.filter((m) => m.includes('undici'))).toEqual([]);
  },
  HANG_MS,
);
