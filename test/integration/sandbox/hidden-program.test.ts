import { linkSync, copyFileSync, mkdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { textOf } from '../../helpers/bridge.ts';
import { useHeadless } from '../../helpers/headless.ts';
import { startNpmRegistry, type NpmRegistry } from '../../helpers/npm-registry.ts';
import { NODE, waitFor } from '../../helpers/servers.ts';
import { sandboxUnavailable } from '../../helpers/sandbox.ts';

// Issue 33 item 2: an npm server runs from the store on the first `node` on PATH. When that is a
// checkout's node_modules/.bin/node under /tmp (private inside the sandbox), the sandbox must still
// let it start: the approval grants the node it runs on, its real file and its package.
const skip = sandboxUnavailable() !== undefined;
const STORE_FIXTURES = join(import.meta.dirname, '../../fixtures/store');

describe.skipIf(skip)(
  'the program an approval names is readable inside the sandbox',
  { timeout: 180_000 },
  () => {
    const h = useHeadless();
    let registry: NpmRegistry;

    beforeAll(async () => {
      registry = await startNpmRegistry();
      await registry.publish(join(STORE_FIXTURES, 'sb-store-dep'));
      await registry.publish(join(STORE_FIXTURES, 'sb-store-pkg'));
    });
    afterAll(async () => {
      await registry.close();
    });

    it('a stored npm server on a checkout’s node_modules/.bin/node under /tmp starts and answers', async () => {
      // As `npm install node@20` lays it out: .bin/node -> ../node/bin/node, a hard link to the binary.
      const checkout = join(h.t.dir, 'checkout', 'node_modules');
      mkdirSync(join(checkout, 'node', 'bin'), { recursive: true });
      mkdirSync(join(checkout, '.bin'));
      try {
        linkSync(NODE, join(checkout, 'node', 'bin', 'node'));
      } catch {
        copyFileSync(NODE, join(checkout, 'node', 'bin', 'node'));
      }
      symlinkSync('../node/bin/node', join(checkout, '.bin', 'node'));
      expect(h.t.dir.startsWith('/tmp/')).toBe(true);

      h.t.writeServers({ mcpServers: { pkg: { command: 'npx', args: ['-y', 'sb-store-pkg'] } } });
      const env = { ...h.t.env, ...registry.npmEnv(join(h.t.dir, 'npm-cache')) };
      env.PATH = `${join(checkout, '.bin')}:${env.PATH ?? ''}`;
      // Not started by npm here (npm's own .bin entries in front would be dropped from PATH).
      delete env.npm_command;
      delete env.npm_lifecycle_event;
      await h.start({ env, editorSync: false });
      const shown = await h.headless.core.approvals.preview('pkg');
      h.headless.core.approvals.approve('pkg', shown.fingerprint);
      const status = await waitFor(
        () => {
          const s = h.headless.core.status.report().servers.find((x) => x.name === 'pkg');
          return s &&
            ['running', 'crash-loop', 'error'].includes(s.state) &&
            (s.state !== 'running' || s.toolCount)
            ? s
            : undefined;
        },
        120_000,
        'pkg started or failed',
      );
      expect(status.lastError).toBeNull();
      expect(status.state).toBe('running');
      const client = await h.connect('/mcp/pkg');
      expect(textOf(await client.callTool({ name: 'greet', arguments: { name: 'ada' } }))).toContain('ada');
      // The approval said so: the node it runs on, with its package, is what it may read.
      expect(shown.access.join('\n')).toContain(`${checkout}/node (where its program is installed)`);
      expect(shown.access.join('\n')).not.toContain('WILL NOT START');
    });
  },
);
