import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OsKeychain } from '../../../electron/core/secrets/keychain.ts';
import { startHeadless, type Headless } from '../../../electron/headless/serve.ts';
import { editorToken } from '../../helpers/bridge.ts';
import { everythingServer, NODE, waitFor } from '../../helpers/servers.ts';
import { tempHome, type TempHome } from '../../helpers/temp-home.ts';

const run = promisify(execFile);
const INSPECTOR = join(
  createRequire(import.meta.url).resolve('@modelcontextprotocol/inspector/package.json'),
  '..',
  'clients/launcher/build/index.js',
);

let t: TempHome;
let headless: Headless;

beforeAll(async () => {
  t = tempHome();
  t.writeServers({ mcpServers: { everything: everythingServer() } });
  headless = await startHeadless({ home: t.home, keychain: new OsKeychain(), env: t.env, port: 0 });
  headless.core.approvals.approve('everything', headless.core.approvals.review('everything').fingerprint);
  await waitFor(() => headless.core.status.report().servers[0]?.toolCount, 45_000, 'everything running');
});

afterAll(async () => {
  await headless?.stop();
  t?.cleanup();
});

/** The official MCP Inspector's CLI: a third-party client that knows only the URL and a header. */
async function inspector(...args: string[]): Promise<unknown> {
  const url = `http://127.0.0.1:${headless.port}/mcp/everything`;
  const { stdout } = await run(
    NODE,
    [
      INSPECTOR,
      '--cli',
      url,
      '--transport',
      'http',
      '--header',
      `Authorization: Bearer ${editorToken(headless.tokens)}`,
      ...args,
    ],
    { env: { ...t.env, MCP_CATALOG_PATH: join(t.dir, 'inspector-catalog.json') }, timeout: 60_000 },
  );
  return JSON.parse(stdout);
}

describe('MCP Inspector CLI through the bridge', () => {
  it('lists the tools of server-everything', async () => {
    const result = (await inspector('--method', 'tools/list')) as { tools: { name: string }[] };
    expect(result.tools.map((tool) => tool.name)).toEqual(expect.arrayContaining(['echo', 'get-sum']));
  });

  it('calls echo', async () => {
    const result = (await inspector(
      '--method',
      'tools/call',
      '--tool-name',
      'echo',
      '--tool-arg',
      'message=from-inspector',
    )) as {
      content: { text: string }[];
    };
    expect(result.content[0]?.text).toBe('Echo: from-inspector');
  });
});
