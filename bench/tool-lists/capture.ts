// Records the real tool lists of MCP servers published on npm, as data for bench/tools.ts:
// bench/tool-lists/<name>.json = {"package", "version", "capturedAt", "tools": [...]} exactly as the
// server listed them. Each server runs once with `npx -y PACKAGE@latest` (dummy credentials where it
// wants some at start; listing tools calls no API) and is stopped. Needs the npm registry only.
//
//   node bench/tool-lists/capture.ts [NAME…]        (default: every server below; a few minutes)
//
// `version` is what the server says of itself in initialize (serverInfo), not always the package's.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

interface Source {
  package: string;
  args?: string[];
  env?: Record<string, string>;
}

const dir = mkdtempSync(join(tmpdir(), 'sb-capture-'));
const SERVERS: Record<string, Source> = {
  everything: { package: '@modelcontextprotocol/server-everything', args: ['stdio'] },
  filesystem: { package: '@modelcontextprotocol/server-filesystem', args: [dir] },
  memory: { package: '@modelcontextprotocol/server-memory' },
  'sequential-thinking': { package: '@modelcontextprotocol/server-sequential-thinking' },
  github: {
    package: '@modelcontextprotocol/server-github',
    env: { GITHUB_PERSONAL_ACCESS_TOKEN: 'dummy' },
  },
  playwright: { package: '@playwright/mcp' },
  'chrome-devtools': { package: 'chrome-devtools-mcp' },
  context7: { package: '@upstash/context7-mcp' },
  notion: { package: '@notionhq/notion-mcp-server', env: { NOTION_TOKEN: 'dummy' } },
  puppeteer: { package: '@modelcontextprotocol/server-puppeteer' },
  slack: {
    package: '@modelcontextprotocol/server-slack',
    env: { SLACK_BOT_TOKEN: 'dummy', SLACK_TEAM_ID: 'T0' },
  },
  kubernetes: { package: 'mcp-server-kubernetes' },
  'brave-search': { package: '@modelcontextprotocol/server-brave-search', env: { BRAVE_API_KEY: 'dummy' } },
  firecrawl: { package: 'firecrawl-mcp', env: { FIRECRAWL_API_KEY: 'fc-dummy' } },
  tavily: { package: 'tavily-mcp', env: { TAVILY_API_KEY: 'tvly-dummy' } },
  exa: { package: 'exa-mcp-server', env: { EXA_API_KEY: 'dummy' } },
  'google-maps': {
    package: '@modelcontextprotocol/server-google-maps',
    env: { GOOGLE_MAPS_API_KEY: 'dummy' },
  },
  postgres: { package: '@modelcontextprotocol/server-postgres', args: ['postgresql://127.0.0.1:1/x'] },
};

async function capture(name: string, source: Source): Promise<void> {
  const client = new Client({ name: 'switchboard-bench-capture', version: '1.0.0' });
  const transport = new StdioClientTransport({
    command: 'npx',
    args: ['-y', `${source.package}@latest`, ...(source.args ?? [])],
    env: { ...(process.env as Record<string, string>), ...source.env },
    stderr: 'ignore',
  });
  const timeout = setTimeout(() => void transport.close(), 120_000);
  try {
    await client.connect(transport);
    const { tools } = await client.listTools();
    const version = client.getServerVersion()?.version ?? 'unknown';
    const file = new URL(`./${name}.json`, import.meta.url);
    const data = {
      package: source.package,
      version,
      capturedAt: new Date().toISOString().slice(0, 10),
      tools,
    };
    writeFileSync(file, JSON.stringify(data, null, 1) + '\n');
    console.log(`${name}: ${tools.length} tools (${source.package} ${version})`);
  } catch (err) {
    console.log(`${name}: not captured (${err instanceof Error ? err.message : String(err)})`);
  } finally {
    clearTimeout(timeout);
    await client.close().catch(() => undefined);
  }
}

const wanted = process.argv.slice(2);
for (const [name, source] of Object.entries(SERVERS)) {
  if (wanted.length && !wanted.includes(name)) continue;
  await capture(name, source);
}
