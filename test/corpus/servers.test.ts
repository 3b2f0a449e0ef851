import { execFileSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ListRootsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServerStatus } from '../../shared/status.ts';
import { MemoryKeychain } from '../../electron/core/secrets/keychain.ts';
import { RELAYED_CLIENT_CAPABILITIES } from '../../electron/core/supervisor/initialize.ts';
import { useHeadless } from '../helpers/headless.ts';
import { sandboxUnavailable } from '../helpers/sandbox.ts';
import { NODE, startListening } from '../helpers/servers.ts';
import {
  CORPUS,
  corpusInstalled,
  corpusProgram,
  corpusVersion,
  KEY,
  KEY_NAME,
  KEY_VALUE,
  type CorpusPlaces,
  type CorpusServer,
} from './corpus.ts';

// Every server of the corpus (test/corpus/corpus.ts), started twice: directly, the way an editor
// starts it (the SDK's StdioClientTransport), and through a real headless Switchboard in the default
// sandbox (approved, then reached on the bridge with an editor's token). Both must list the same tools
// (names and schemas) and answer the one call the same; a server that does not is in the table with
// the one grant it needs, and then its status must name that grant, and with the grant it must work
// as directly. Entries the table marks as known gaps (status silent) are checked to still be gaps, so
// a fix shows here as well as a regression.
//
// Sandboxed, each runs as `node <test/corpus/npm/node_modules/…/program>`: a path argument under a
// node_modules folder makes that folder readable, as the package store's folder is for a stored
// `npx -y pkg@version` (the store runs `node <stored program>` the same way, but installing into it
// asks the registry at every approval).

const installed = corpusInstalled();
const required = process.env.SWITCHBOARD_REQUIRE_CORPUS === '1';
const sandboxMissing = installed ? sandboxUnavailable() : undefined;
/** Servers started at once (each directly and sandboxed): the machine has two cores. */
const BATCH = 3;
/** A server that neither runs nor fails by then is reported as stuck (npm servers start in seconds). */
const START_MS = 90_000;
const CALL_MS = 60_000;

describe('docs/sandbox-corpus.md', () => {
  it('lists every corpus server with its pinned version and whether it works in the default sandbox', () => {
    const page = readFileSync(new URL('../../docs/sandbox-corpus.md', import.meta.url), 'utf8');
    const rows = page
      .split('\n')
      .filter((line) => line.startsWith('|'))
      .map((line) =>
        line
          .split('|')
          .slice(1, 4)
          .map((cell) => cell.trim())
          .join(' | '),
      );
    for (const server of CORPUS) {
      const row = `${server.name} | ${server.pkg}@${corpusVersion(server.pkg)} | ${server.sandbox.works ? 'yes' : 'no'}`;
      expect(rows, 'docs/sandbox-corpus.md: server | package@version | works').toContain(row);
    }
    expect(rows.length - 2, 'docs/sandbox-corpus.md rows besides the corpus').toBe(CORPUS.length);
  });
});

describe.runIf(!installed && required)('the server corpus', () => {
  it('is installed', () => {
    throw new Error('the server corpus is not installed: run  bash test/corpus/install.sh');
  });
});

if (!installed && !required) {
  console.log('server corpus skipped: not installed (bash test/corpus/install.sh; needs the npm registry)');
}

/** What a client saw: the tools, the call's answer, or why it got neither. */
interface Seen {
  tools?: Record<string, unknown>;
  answer?: { isError: boolean; text: string };
  failed?: string;
}

interface Outcome {
  direct: Seen;
  sandboxed: Seen;
  /** the sandboxed server's status once it ran (or failed) */
  status: ServerStatus | undefined;
  /** the same, sandboxed with the table's grant (only entries that need one) */
  granted?: Seen;
  /** the end of its log in Switchboard, when the sandboxed run differs */
  log?: string;
}

const GRANTED = (name: string) => `${name}-granted`;

describe.skipIf(!installed || sandboxMissing !== undefined)(
  'the server corpus, directly and in the default sandbox',
  () => {
    const sb = useHeadless();
    let places: CorpusPlaces;
    let remote: ChildProcess | undefined;
    const outcomes = new Map<string, Outcome>();
    let wallMs = 0;

    beforeAll(async () => {
      const started = Date.now();
      places = makePlaces(sb.t.env.HOME ?? '', await startRemote());
      sb.t.writeServers({ mcpServers: serversJson(places) });
      const keychain = new MemoryKeychain();
      await keychain.set(KEY_NAME, KEY_VALUE);
      const h = await sb.start({ keychain });
      for (let i = 0; i < CORPUS.length; i += BATCH) {
        const batch = CORPUS.slice(i, i + BATCH);
        await Promise.all(
          batch.map(async (server) => {
            // Sandboxed first, so that it meets the home as a new user has it, not with the folders
            // the direct run makes (~/.mongodb, ~/.mcp-auth, …); then directly, with the same HOME.
            const [sandboxed, granted] = await Promise.all([
              runSandboxed(server.name, server, places),
              server.sandbox.works ? undefined : runSandboxed(GRANTED(server.name), server, places),
            ]);
            const direct = await runDirect(
              server,
              places,
              join(sb.t.dir, 'direct', server.name),
              sb.t.env.HOME ?? '',
            );
            const same = JSON.stringify(direct) === JSON.stringify(sandboxed.seen);
            const log = same
              ? undefined
              : h.core.logs
                  .lines(server.name, 12)
                  .map((l) => l.text)
                  .filter((text) => !text.startsWith('spawned pid'))
                  .slice(-6)
                  .join(' / ')
                  .slice(-600);
            outcomes.set(server.name, {
              direct,
              sandboxed: sandboxed.seen,
              status: sandboxed.status,
              granted: granted?.seen,
              log,
            });
          }),
        );
        for (const server of batch) {
          await h.core.lifecycle.stopServer(server.name);
          if (!server.sandbox.works) await h.core.lifecycle.stopServer(GRANTED(server.name));
        }
      }
      wallMs = Date.now() - started;
    }, 30 * 60_000);

    afterAll(() => {
      remote?.kill();
      if (outcomes.size) console.log(summary(outcomes, wallMs));
    });

    async function startRemote(): Promise<CorpusPlaces['remote']> {
      process.env.REMOTE_SECRET = KEY_VALUE;
      const { child, port } = await startListening('remote-server.mjs', '0');
      remote = child;
      return { url: `http://localhost:${port}/mcp`, hostPort: `localhost:${port}` };
    }

    async function runSandboxed(
      name: string,
      server: CorpusServer,
      p: CorpusPlaces,
    ): Promise<{ seen: Seen; status: ServerStatus | undefined }> {
      const core = sb.headless.core;
      core.approvals.approve(name, core.approvals.review(name).fingerprint);
      const status = () => core.status.report().servers.find((s) => s.name === name);
      const ended = await until(() => {
        const s = status();
        if (s?.state === 'running' && s.toolCount !== null) return s;
        if (s && ['backoff', 'crash-loop', 'error'].includes(s.state)) return s;
        return undefined;
      }, START_MS);
      if (ended?.state !== 'running') {
        return {
          seen: { failed: `${ended?.state ?? 'stuck'}: ${ended?.lastError ?? ''}` },
          status: status(),
        };
      }
      let client: Client;
      try {
        client = await sb.connect(`/mcp/${name}`);
      } catch (error) {
        return { seen: { failed: `bridge: ${String(error)}` }, status: status() };
      }
      const seen = await use(client, server, p);
      // A refusal is reported as the server meets it; give the status a moment to show one.
      if (!server.sandbox.works || seen.failed || seen.answer?.isError)
        await until(() => status()?.sandboxRefused, 3_000);
      return { seen, status: status() };
    }

    for (const server of CORPUS) {
      const finding = server.sandbox;
      const title = finding.works
        ? `${server.name} works in the default sandbox as directly`
        : finding.gap
          ? `${server.name} needs ${finding.grantText} (known gap: its status does not say so), and with it it works`
          : `${server.name} needs ${finding.grantText}: its status says so, and with it it works`;
      it(title, () => {
        const outcome = outcomes.get(server.name);
        if (!outcome) throw new Error(`${server.name} was not run (the setup failed before it)`);
        const { direct, sandboxed, status } = outcome;
        expect(direct.failed, `${server.name} directly`).toBeUndefined();
        expect(direct.tools && Object.keys(direct.tools).length).toBeGreaterThan(0);
        if (finding.works) {
          expect(sandboxed, `${server.name} sandboxed (status: ${statusWords(status)})`).toEqual(direct);
          return;
        }
        expect(sandboxed, `${server.name} sandboxed differs from directly`).not.toEqual(direct);
        expect(outcome.granted, `${server.name} with ${finding.grantText}`).toEqual(direct);
        if (finding.gap) {
          // known gap: the status does not name the grant (update the table once it does)
          expect(statusWords(status), `${server.name}'s status now names its grant`).not.toContain(
            finding.says(places),
          );
        } else {
          expect(statusWords(status)).toContain(finding.says(places));
        }
      });
    }
  },
);

/** The person's folders the servers are pointed at: `~/work` with a note, `~/repo` with one commit. */
function makePlaces(home: string, remote: CorpusPlaces['remote']): CorpusPlaces {
  const work = join(home, 'work');
  const repo = join(home, 'repo');
  mkdirSync(work, { recursive: true });
  writeFileSync(join(work, 'notes.md'), 'corpus notes\n');
  mkdirSync(repo, { recursive: true });
  writeFileSync(join(repo, 'README.md'), 'corpus repo\n');
  const git = (...args: string[]) =>
    execFileSync('git', ['-c', 'user.name=corpus', '-c', 'user.email=corpus@localhost', ...args], {
      cwd: repo,
      stdio: 'ignore',
    });
  git('init', '-q', '-b', 'main');
  git('add', '.');
  git('commit', '-q', '-m', 'first');
  for (const server of CORPUS) {
    if (server.sandbox.works) continue;
    for (const folder of server.sandbox.makeFirst ?? [])
      mkdirSync(join(home, folder.replace(/^~\//, '')), { recursive: true });
  }
  return { work, repo, remote };
}

/** servers.json: each server as a person writes it, and with its grant (`<name>-granted`) where it needs one. */
function serversJson(p: CorpusPlaces): Record<string, unknown> {
  const servers: Record<string, unknown> = {};
  for (const server of CORPUS) {
    const config = {
      command: NODE,
      args: [corpusProgram(server), ...(server.args?.(p) ?? [])],
      ...(server.env ? { env: server.env } : {}),
    };
    servers[server.name] = config;
    if (!server.sandbox.works)
      servers[GRANTED(server.name)] = { ...config, sandbox: server.sandbox.grant(p) };
  }
  return servers;
}

/** The server as an editor starts it: a child process on stdio, HOME the person's, cwd a folder of its own. */
async function runDirect(server: CorpusServer, p: CorpusPlaces, cwd: string, home: string): Promise<Seen> {
  mkdirSync(cwd, { recursive: true });
  const transport = new StdioClientTransport({
    command: NODE,
    args: [corpusProgram(server), ...(server.args?.(p) ?? [])].map(withKey),
    env: {
      PATH: process.env.PATH ?? '',
      HOME: home,
      ...Object.fromEntries(Object.entries(server.env ?? {}).map(([k, v]) => [k, withKey(v)])),
    },
    cwd,
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-2000)));
  // What Switchboard tells a server its client can do (server-everything lists more tools for it).
  const client = new Client(
    { name: 'corpus-direct', version: '1.0.0' },
    { capabilities: RELAYED_CLIENT_CAPABILITIES },
  );
  client.setRequestHandler(ListRootsRequestSchema, () => ({ roots: [] }));
  try {
    await within(client.connect(transport), START_MS, 'initialize');
  } catch (error) {
    await client.close().catch(() => undefined);
    return { failed: `${String(error)}: ${stderr}` };
  }
  try {
    return await use(client, server, p);
  } finally {
    await client.close().catch(() => undefined);
  }
}

/** The dummy key itself where servers.json refers to it in the keychain. */
function withKey(text: string): string {
  return text.replaceAll(KEY, KEY_VALUE);
}

/** tools/list and the one call, through `client`. */
async function use(client: Client, server: CorpusServer, p: CorpusPlaces): Promise<Seen> {
  const seen: Seen = {};
  try {
    const { tools } = await within(client.listTools(), CALL_MS, 'tools/list');
    seen.tools = Object.fromEntries(
      tools.map((tool) => [tool.name, tool.inputSchema] as const).sort(([a], [b]) => a.localeCompare(b)),
    );
  } catch (error) {
    return { failed: `tools/list: ${String(error)}` };
  }
  if ('none' in server.call) return seen;
  try {
    const result = await within(
      client.callTool({ name: server.call.tool, arguments: server.call.arguments(p) }),
      CALL_MS,
      server.call.tool,
    );
    const content = (result.content ?? []) as { type: string; text?: string }[];
    seen.answer = {
      isError: result.isError === true,
      text: normalized(content.map((c) => (c.type === 'text' ? (c.text ?? '') : `[${c.type}]`)).join('\n')),
    };
  } catch (error) {
    seen.answer = { isError: true, text: `threw: ${normalized(String(error))}` };
  }
  return seen;
}

/** What differs between two runs of the same call for no reason of the sandbox: ids and times. */
function normalized(text: string): string {
  return text
    .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi, '<uuid>')
    .replace(/\d{4}-\d\d-\d\dT\d\d[-:]\d\d[-:]\d\d([-.:]\d+)?Z?/g, '<time>');
}

function statusWords(status: ServerStatus | undefined): string {
  return [status?.state, status?.lastError, status?.sandboxRefused].filter(Boolean).join(' | ');
}

async function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`${what}: no answer in ${ms} ms`)), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** Polls `check` until it gives a value or `ms` pass (then undefined: the caller says what that means). */
async function until<T>(check: () => T | undefined, ms: number): Promise<T | undefined> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = check();
    if (value !== undefined || Date.now() > deadline) return value;
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** The measured table, printed for docs/sandbox-corpus.md and the report. */
function summary(outcomes: Map<string, Outcome>, wallMs: number): string {
  const rows = CORPUS.map((server) => {
    const o = outcomes.get(server.name);
    const same = o && JSON.stringify(o.sandboxed) === JSON.stringify(o.direct);
    const grantedSame = o?.granted && JSON.stringify(o.granted) === JSON.stringify(o.direct);
    const verdict = same ? 'works' : grantedSame ? 'works after grant' : 'differs';
    const detail =
      o && !same
        ? ` | ${difference(o.direct, o.sandboxed)} | status: ${statusWords(o.status)}${o.granted ? ` | granted: ${difference(o.direct, o.granted)}` : ''}${o.log ? `\n    log: ${o.log}` : ''}`
        : '';
    return `${server.name}@${corpusVersion(server.pkg)}: ${verdict}${detail}`;
  });
  return `server corpus (${outcomes.size} servers, ${Math.round(wallMs / 1000)} s):\n${rows.join('\n')}`;
}

/** The first thing that differs between the direct and the sandboxed run, in a line. */
function difference(direct: Seen, sandboxed: Seen): string {
  if (direct.failed || sandboxed.failed)
    return `direct: ${direct.failed ?? 'ok'}; sandboxed: ${sandboxed.failed ?? 'ok'}`;
  const names = (seen: Seen) => Object.keys(seen.tools ?? {});
  const missing = names(direct).filter((n) => !names(sandboxed).includes(n));
  const extra = names(sandboxed).filter((n) => !names(direct).includes(n));
  if (missing.length || extra.length)
    return `tools missing sandboxed: ${missing.join(' ')}; extra: ${extra.join(' ')}`;
  const schema = names(direct).find(
    (n) => JSON.stringify(direct.tools?.[n]) !== JSON.stringify(sandboxed.tools?.[n]),
  );
  if (schema) {
    return `schema of ${schema}: ${JSON.stringify(direct.tools?.[schema]).slice(0, 200)} vs ${JSON.stringify(sandboxed.tools?.[schema]).slice(0, 200)}`;
  }
  return `answer: ${JSON.stringify(direct.answer).slice(0, 300)} vs ${JSON.stringify(sandboxed.answer).slice(0, 300)}`;
}
