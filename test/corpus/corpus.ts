import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { SandboxSetting } from '../../shared/schema/servers.ts';

/**
 * The server corpus: popular stdio MCP servers from npm, pinned in test/corpus/npm/package.json (installed
 * by test/corpus/install.sh), each with how it is started and the one call that needs neither the
 * internet nor a real account. This table is also the record of what each needs from the sandbox:
 * docs/sandbox-corpus.md shows it, servers.test.ts checks it. When the sandbox changes, update
 * `sandbox` here (the test says which entry is wrong).
 */

export const CORPUS_DIR = dirname(fileURLToPath(import.meta.url));
/** the corpus's own npm package, apart from this file so that the test's imports do not resolve in it */
const PACKAGE_DIR = join(CORPUS_DIR, 'npm');
const MODULES = join(PACKAGE_DIR, 'node_modules');

/** What a server's arguments and calls may refer to, made fresh by the test. */
export interface CorpusPlaces {
  /** a folder of the person's, in their home (`~/work`), with a file `notes.md` */
  work: string;
  /** a git repository in their home (`~/repo`), one commit */
  repo: string;
  /** a local stand-in for a remote MCP server (test/fixtures/remote-server.mjs) */
  remote: { url: string; hostPort: string };
}

/** How the server fares in Switchboard's default sandbox, compared with the same server run directly. */
export type SandboxFinding =
  /** works as directly: the same tools and the same answer to the call */
  | { works: true }
  | {
      works: false;
      /** the one change to its `sandbox` setting that makes it work as directly */
      grant: (places: CorpusPlaces) => SandboxSetting;
      /** the grant in a person's words, as docs/sandbox-corpus.md shows it */
      grantText: string;
      /** why the server needs it */
      why: string;
      /**
       * Folders of the grant that must exist before it helps (`~/…`): the sandbox skips a grant of a
       * path that does not exist, and does not make it. The test makes them in the person's home.
       */
      makeFirst?: string[];
      /** the words its status (lastError / sandboxRefused) should have, naming that grant */
      says: (places: CorpusPlaces) => string;
      /**
       * A known gap: its status does not say so today (what it shows instead). The test checks the
       * status still lacks the words, so that a fix shows as a failure to update here.
       */
      gap?: string;
    };

export interface CorpusServer {
  /** the server's name in servers.json */
  name: string;
  /** the npm package (its version is package.json's) */
  pkg: string;
  /** its program, relative to the package */
  bin: string;
  args?: (places: CorpusPlaces) => string[];
  /** dummy keys for servers that need one to start; the same both ways */
  env?: Record<string, string>;
  /** the one call, or why there is none (every tool calls its vendor's API on the internet) */
  call: { tool: string; arguments: (places: CorpusPlaces) => Record<string, unknown> } | { none: string };
  sandbox: SandboxFinding;
}

const PAGE = 'data:text/html,<title>corpus</title>hello';

/**
 * The dummy key (an API key, a token) of servers that need one to start. servers.json refers to it in
 * the keychain, as Switchboard requires of anything secret-looking; run directly, the server gets the
 * value itself.
 */
export const KEY = '${secret:corpus-key}';
export const KEY_NAME = 'corpus-key';
export const KEY_VALUE = 'corpus-dummy-key-0000';
const WORKS = { works: true } as const;
/** The words a status uses to ask for a path grant (electron/core/sandbox/refusals.ts). */
const asks = (kind: 'read' | 'write', path: string) => `${path}: add it to sandbox.${kind}`;
const apiOnly = (host: string) => ({ none: `every tool calls ${host}` });

export const CORPUS: readonly CorpusServer[] = [
  {
    name: 'everything',
    pkg: '@modelcontextprotocol/server-everything',
    bin: 'dist/index.js',
    args: () => ['stdio'],
    call: { tool: 'echo', arguments: () => ({ message: 'corpus' }) },
    sandbox: WORKS,
  },
  {
    name: 'filesystem',
    pkg: '@modelcontextprotocol/server-filesystem',
    bin: 'dist/index.js',
    args: (p) => [p.work],
    call: { tool: 'list_directory', arguments: (p) => ({ path: p.work }) },
    sandbox: WORKS,
  },
  {
    name: 'memory',
    pkg: '@modelcontextprotocol/server-memory',
    bin: 'dist/index.js',
    call: { tool: 'read_graph', arguments: () => ({}) },
    sandbox: WORKS,
  },
  {
    name: 'sequential-thinking',
    pkg: '@modelcontextprotocol/server-sequential-thinking',
    bin: 'dist/index.js',
    call: {
      tool: 'sequentialthinking',
      arguments: () => ({
        thought: 'one step',
        nextThoughtNeeded: false,
        thoughtNumber: 1,
        totalThoughts: 1,
      }),
    },
    sandbox: WORKS,
  },
  {
    name: 'puppeteer',
    pkg: '@modelcontextprotocol/server-puppeteer',
    bin: 'dist/index.js',
    // The Debian Chromium (npm's browser download is a postinstall script, which .npmrc skips); as
    // root, Chromium starts only with --no-sandbox, which the server allows with ALLOW_DANGEROUS.
    env: {
      ALLOW_DANGEROUS: 'true',
      PUPPETEER_LAUNCH_OPTIONS: JSON.stringify({
        headless: true,
        executablePath: '/usr/bin/chromium',
        args: ['--no-sandbox'],
      }),
    },
    call: { tool: 'puppeteer_navigate', arguments: () => ({ url: PAGE }) },
    sandbox: WORKS,
  },
  {
    name: 'playwright',
    pkg: '@playwright/mcp',
    bin: 'cli.js',
    args: () => [
      '--headless',
      '--isolated',
      '--browser=chromium',
      '--executable-path=/usr/bin/chromium',
      '--no-sandbox',
    ],
    call: { tool: 'browser_navigate', arguments: () => ({ url: PAGE }) },
    sandbox: {
      works: false,
      grant: () => ({ write: ['~/.cache/ms-playwright'] }),
      grantText: 'write ~/.cache/ms-playwright',
      why: 'Playwright keeps its daemon and browser state in ~/.cache/ms-playwright, even with --isolated',
      makeFirst: ['~/.cache/ms-playwright'],
      says: () => asks('write', '~/.cache/ms-playwright'),
      gap: 'status says "running" (at times also a DNS failure of Chromium\'s update check); the call answers EROFS',
    },
  },
  {
    name: 'mcp-remote',
    pkg: 'mcp-remote',
    bin: 'dist/proxy.js',
    args: (p) => [p.remote.url, '--header', `Authorization:Bearer ${KEY}`],
    call: { tool: 'echo', arguments: () => ({ message: 'corpus' }) },
    sandbox: {
      works: false,
      grant: (p) => ({ network: [p.remote.hostPort] }),
      grantText: 'network: the remote server\'s host:port (here a local stand-in, "localhost:PORT")',
      why: "the default network is the internet, not this computer's own services; refused, it exits",
      says: (p) => `add "${p.remote.hostPort}" to sandbox.network`,
    },
  },
  {
    name: 'context7',
    pkg: '@upstash/context7-mcp',
    bin: 'dist/index.js',
    call: apiOnly('context7.com'),
    sandbox: WORKS,
  },
  {
    name: 'notion',
    pkg: '@notionhq/notion-mcp-server',
    bin: 'bin/cli.mjs',
    env: { NOTION_TOKEN: KEY },
    call: apiOnly('api.notion.com'),
    sandbox: WORKS,
  },
  {
    name: 'git',
    pkg: '@cyanheads/git-mcp-server',
    bin: 'dist/index.js',
    call: { tool: 'git_status', arguments: (p) => ({ path: p.repo }) },
    sandbox: {
      works: false,
      grant: () => ({ read: ['~/repo'] }),
      grantText: 'read ~/repo (the repository it works on)',
      why: 'the repository is in the home, which the sandbox hides',
      says: () => asks('read', '~/repo'),
      gap: 'status says "running"; the call answers "Working directory does not exist"',
    },
  },
  {
    name: 'github',
    pkg: '@modelcontextprotocol/server-github',
    bin: 'dist/index.js',
    env: { GITHUB_PERSONAL_ACCESS_TOKEN: KEY },
    call: apiOnly('api.github.com'),
    sandbox: WORKS,
  },
  {
    name: 'tavily',
    pkg: 'tavily-mcp',
    bin: 'build/index.js',
    env: { TAVILY_API_KEY: KEY },
    call: apiOnly('api.tavily.com'),
    sandbox: WORKS,
  },
  {
    name: 'firecrawl',
    pkg: 'firecrawl-mcp',
    bin: 'dist/index.js',
    env: { FIRECRAWL_API_KEY: KEY },
    call: apiOnly('api.firecrawl.dev'),
    sandbox: WORKS,
  },
  {
    name: 'brave-search',
    pkg: '@brave/brave-search-mcp-server',
    bin: 'dist/index.js',
    env: { BRAVE_API_KEY: KEY },
    call: apiOnly('api.search.brave.com'),
    sandbox: WORKS,
  },
  {
    name: 'exa',
    pkg: 'exa-mcp-server',
    bin: 'dist/stdio.cjs',
    env: { EXA_API_KEY: KEY },
    call: apiOnly('api.exa.ai'),
    sandbox: WORKS,
  },
  {
    name: 'sentry',
    pkg: '@sentry/mcp-server',
    bin: 'dist/index.js',
    args: () => ['--access-token', KEY],
    // answered from its own catalogue, no request
    call: { tool: 'search_sentry_tools', arguments: () => ({ query: 'issues' }) },
    sandbox: WORKS,
  },
  {
    name: 'figma',
    pkg: 'figma-developer-mcp',
    bin: 'dist/bin.js',
    args: () => ['--stdio', '--figma-api-key', KEY],
    call: apiOnly('api.figma.com'),
    sandbox: WORKS,
  },
  {
    name: 'youtube-transcript',
    pkg: '@kimtaeyoon83/mcp-server-youtube-transcript',
    bin: 'dist/index.js',
    call: apiOnly('www.youtube.com'),
    sandbox: WORKS,
  },
  {
    name: 'kubernetes',
    pkg: 'mcp-server-kubernetes',
    bin: 'dist/index.js',
    call: { tool: 'ping', arguments: () => ({}) },
    sandbox: WORKS,
  },
  {
    name: 'ea-playwright',
    pkg: '@executeautomation/playwright-mcp-server',
    bin: 'dist/index.js',
    call: { tool: 'start_codegen_session', arguments: (p) => ({ options: { outputPath: p.work } }) },
    sandbox: {
      works: false,
      grant: () => ({ write: ['~/work'] }),
      grantText: 'write ~/work (where it writes the tests)',
      why: 'the folder it generates tests into is in the home, which the sandbox hides',
      says: () => asks('write', '~/work'),
      gap: 'status names a non-fatal refusal (writing ~/playwright-mcp-server.log, its log) instead',
    },
  },
  {
    name: 'desktop-commander',
    pkg: '@wonderwhy-er/desktop-commander',
    bin: 'dist/index.js',
    call: { tool: 'list_directory', arguments: (p) => ({ path: p.work }) },
    sandbox: {
      works: false,
      grant: () => ({ write: ['~/.claude-server-commander', '~/work'] }),
      grantText: 'write ~/.claude-server-commander and read ~/work (two grants)',
      why: 'it exits when it cannot make its config folder; then the folder it is asked to list is hidden',
      makeFirst: ['~/.claude-server-commander'],
      says: () => asks('write', '~/.claude-server-commander'),
      gap: 'status asks to add ~/.claude-server-commander to sandbox.read (it needs write); without the folder, it shows only "Node.js v24…"',
    },
  },
  {
    name: 'browser-tools',
    pkg: '@agentdeskai/browser-tools-mcp',
    bin: 'dist/index.js',
    call: { tool: 'getConnectionStatus', arguments: () => ({}) },
    sandbox: WORKS,
  },
  {
    name: 'mongodb',
    pkg: 'mongodb-mcp-server',
    bin: 'dist/esm/index.js',
    call: { tool: 'list-connections', arguments: () => ({}) },
    sandbox: {
      works: false,
      grant: () => ({ write: ['~/.mongodb'] }),
      grantText: 'write ~/.mongodb',
      why: 'it exits when it cannot make ~/.mongodb (its logs and settings)',
      makeFirst: ['~/.mongodb'],
      says: () => asks('write', '~/.mongodb'),
      gap: "status asks to add ~/.mongodb to sandbox.read (it needs write); without the folder, only the server's ENOENT",
    },
  },
];

/** The pinned version of a corpus package (test/corpus/npm/package.json; the lockfile pins the rest). */
export function corpusVersion(pkg: string): string {
  const manifest = JSON.parse(readFileSync(join(PACKAGE_DIR, 'package.json'), 'utf8')) as {
    dependencies: Record<string, string>;
  };
  const version = manifest.dependencies[pkg];
  if (!version) throw new Error(`test/corpus/npm/package.json does not pin ${pkg}`);
  return version;
}

/** The absolute path of a corpus server's program. */
export function corpusProgram(server: CorpusServer): string {
  return join(MODULES, server.pkg, server.bin);
}

/** Whether test/corpus/install.sh has installed every corpus package. */
export function corpusInstalled(): boolean {
  return CORPUS.every((server) => existsSync(corpusProgram(server)));
}
