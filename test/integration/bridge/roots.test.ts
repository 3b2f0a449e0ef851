import { mkdirSync, realpathSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ListRootsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import type { Headless } from '../../../electron/headless/serve.ts';
import { textOf } from '../../helpers/bridge.ts';
import { useHeadless } from '../../helpers/headless.ts';
import { waitFor } from '../../helpers/servers.ts';

/**
 * Roots of a shared server, with @modelcontextprotocol/server-filesystem (it works in the folders its
 * client gives as roots, else in those it was started with) and real SDK clients as editors: a call
 * never runs against the folders of an editor that left, and once no editor gives folders the server
 * has the ones it was started with again (its approval), not the last editor's.
 */

const require = createRequire(import.meta.url);
const setup = useHeadless({ perTest: true });

function folder(name: string): string {
  mkdirSync(join(setup.t.dir, name), { recursive: true });
  return realpathSync(join(setup.t.dir, name));
}

/** An editor: a real SDK client on /mcp/fs, giving `root` as its roots (none: no roots capability). */
async function editor(h: Headless, name: string, root?: string): Promise<Client> {
  const client = new Client(
    { name, version: '1.0.0' },
    { capabilities: root ? { roots: { listChanged: true } } : {} },
  );
  if (root)
    client.setRequestHandler(ListRootsRequestSchema, async () => ({
      roots: [{ uri: pathToFileURL(root).href, name }],
    }));
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${h.port}/mcp/fs`), {
      requestInit: { headers: { Authorization: `Bearer ${h.tokens.ensure(name)}` } },
    }),
  );
  setup.clients.push(client);
  return client;
}

/** The folders the server works in now, as it says. */
async function allowed(client: Client): Promise<string[]> {
  const text = textOf(await client.callTool({ name: 'list_allowed_directories', arguments: {} }));
  return text.split('\n').slice(1).filter(Boolean).sort();
}

async function leave(client: Client): Promise<void> {
  await (client.transport as StreamableHTTPClientTransport).terminateSession();
  await client.close();
}

describe('roots of a shared server (server-filesystem)', () => {
  it("never runs a call in a departed editor's folders; with no editor giving folders, it has its own again", async () => {
    const started = folder('started-with');
    const a = folder('editor-a');
    const b = folder('editor-b');
    setup.t.writeServers({
      mcpServers: {
        fs: {
          command: process.execPath,
          args: [require.resolve('@modelcontextprotocol/server-filesystem/dist/index.js'), started],
          // An editor's roots reach only what the sandbox allows: the editors' folders are declared.
          sandbox: { write: [a, b] },
        },
      },
    });
    const h = await setup.start({ editorSync: false });
    await setup.approveRunning(['fs']);

    // Every answer an editor gets is its own folders, or (while the server takes them in) the ones it
    // was started with: never another editor's.
    const seen = async (client: Client, own: string): Promise<void> => {
      await waitFor(
        async () => {
          const dirs = await allowed(client);
          for (const dir of dirs) expect([own, started]).toContain(dir);
          return dirs.includes(own);
        },
        30_000,
        `${own} allowed`,
      );
    };
    const first = await editor(h, 'editor-a', a);
    await seen(first, a);
    await leave(first);

    const second = await editor(h, 'editor-b', b);
    await seen(second, b);
    await leave(second);

    // No editor gives folders now: the server works in those it was started with (its approval).
    const plain = await editor(h, 'plain');
    expect(await allowed(plain)).toEqual([started]);
    expect(h.core.logs.lines('fs').map((l) => l.text)).toContain(
      'the editors that gave it folders (roots) have left: starting it anew with the folders it was started with',
    );
  });
});
