import { existsSync } from 'node:fs';
import { parseArgs } from 'node:util';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { clientMetadataUrlProblem } from '../../../shared/sign-in.ts';
import type { TryResult } from '../../../shared/try-result.ts';
import { systemClock } from '../../core/clock.ts';
import { UserError } from '../../core/errors.ts';
import { signInOpener } from '../../core/oauth/open-browser.ts';
import { NoSignInOffered } from '../../core/oauth/provider.ts';
import { connect, explainSignInError, retrying, SignInSession } from '../../core/oauth/sign-in.ts';
import { SignInStore } from '../../core/oauth/sign-in-store.ts';
import { MemoryKeychain } from '../../core/secrets/keychain.ts';
import { answerRecorder, needsCredentials } from '../../core/supervisor/http-answers.ts';
import { AppStateStore } from '../../core/trust/app-state.ts';
import type { CliContext } from '../context.ts';
import { UsageError } from '../output.ts';
import { pairs } from './servers.ts';
import { usageOf } from '../help.ts';

const USAGE = usageOf('try');

/**
 * Connects to a remote server the way Switchboard would (Streamable HTTP, else HTTP+SSE; an OAuth
 * sign-in in the browser when it asks), prints its name, version and tools, calls one tool if asked,
 * and exits: a check before adding it. A sign-in made here is held in memory only and forgotten.
 */
export async function tryCommand(
  ctx: Pick<CliContext, 'home' | 'env' | 'output'>,
  argv: string[],
): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    options: {
      header: { type: 'string', multiple: true, default: [] },
      'client-id': { type: 'string' },
      'client-secret': { type: 'string' },
      'client-metadata-url': { type: 'string' },
      call: { type: 'string' },
      arguments: { type: 'string' },
      json: { type: 'boolean' },
    },
    allowPositionals: true,
    strict: true,
  });
  const [address, ...extra] = positionals;
  if (!address || extra.length) throw new UsageError(USAGE);
  let url: URL;
  try {
    url = new URL(address);
  } catch {
    throw new UsageError(`"${address}" is not a URL\n${USAGE}`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw new UsageError(`only http(s) servers can be tried (got ${url.protocol})\n${USAGE}`);
  if (values['client-secret'] !== undefined && values['client-id'] === undefined)
    throw new UsageError(`--client-secret needs --client-id\n${USAGE}`);
  if (values.arguments !== undefined && values.call === undefined)
    throw new UsageError(`--arguments needs --call\n${USAGE}`);
  const toolArguments = values.arguments === undefined ? {} : parseArguments(values.arguments);
  // The setting, unless this call gives one (`try` leaves no trace: it reads state.json only if it is there).
  const clientMetadataUrl =
    values['client-metadata-url'] ??
    (existsSync(ctx.home.stateFile) ? new AppStateStore(ctx.home.stateFile).clientMetadataUrl() : undefined);
  const problem = clientMetadataUrl ? clientMetadataUrlProblem(clientMetadataUrl) : undefined;
  if (clientMetadataUrl && problem)
    throw new UsageError(`--client-metadata-url ${clientMetadataUrl}: ${problem}`);
  const headers = pairs(values.header, '--header');

  const out = ctx.output;
  const open = signInOpener(ctx.env);
  const session = await SignInSession.start({
    server: 'try',
    label: url.host,
    serverUrl: url.href,
    // Sign-ins made by `try` are not kept: they live in this process only.
    store: new SignInStore(new MemoryKeychain()),
    clock: systemClock,
    clientMetadataUrl,
    client: values['client-id']
      ? { clientId: values['client-id'], clientSecret: values['client-secret'] }
      : undefined,
    open: (page) => {
      if (ctx.env.SWITCHBOARD_SIGN_IN === 'fetch') {
        out.err(`${url.host} asks for a sign-in: fetching its page (SWITCHBOARD_SIGN_IN=fetch)`);
        void open(page);
        return;
      }
      void open(page).then((opened) => {
        out.err(
          opened
            ? `${url.host} asks you to sign in: continue in your browser (or open ${page.href})`
            : `${url.host} asks you to sign in: open this page in a browser:\n  ${page.href}`,
        );
      });
    },
  });
  // What the server itself answered, for when it asks for credentials but offers no OAuth sign-in.
  const answers = answerRecorder();
  try {
    const connection = await connect(
      session,
      { url: url.href, headers, protocol: 'auto' },
      { name: 'switchboard', version: '0.0.0' },
      answers.fetch,
    ).catch((err: unknown) => {
      // Switchboard's own refusal (a sign-in page it will not open).
      if (err instanceof UserError && !(err instanceof NoSignInOffered))
        throw new UserError(`cannot connect to ${url.href}: ${err.message}`, {
          ...(err.hint ? { hint: err.hint } : {}),
        });
      const answer = answers.last();
      if (session.lastUrl === undefined && answer && needsCredentials(answer))
        throw new UserError(
          `cannot connect to ${url.href}: the server answered ${answer.status} ${answer.statusText} to ${answer.method} and offers no OAuth sign-in`,
          { hint: 'give it the credentials it expects, e.g. --header "Authorization=Bearer KEY"' },
        );
      throw new UserError(`cannot connect to ${url.href}: ${explainSignInError(err)}`);
    });
    const { client } = connection;
    try {
      const info = client.getServerVersion();
      const sse = connection.transport instanceof SSEClientTransport;
      // --json: one document on stdout once everything is in; people get lines as they come.
      const say = (line: string) => (values.json ? undefined : out.out(line));
      say(
        `Connected to ${visible(info?.name ?? '(no name)')} ${visible(info?.version ?? '')} over ${sse ? 'HTTP+SSE' : 'Streamable HTTP'}.`,
      );
      const tools = client.getServerCapabilities()?.tools
        ? await retrying(session, connection, () => listTools(client)).catch((err: unknown) => {
            throw new UserError(`listing its tools failed: ${explainSignInError(err)}`);
          })
        : [];
      say(tools.length ? `Tools (${tools.length}):` : 'No tools.');
      for (const tool of tools) say(`  ${visible(tool.name)}${summary(tool)}`);
      const report: TryResult = {
        url: url.href,
        server: { name: info?.name ?? '', version: info?.version ?? '' },
        transport: sse ? 'http+sse' : 'streamable-http',
        tools,
      };
      if (values.call === undefined) {
        if (values.json) out.out(JSON.stringify(report, null, 2));
        return 0;
      }
      const name = values.call;
      const result = (await retrying(session, connection, () =>
        client.callTool({ name, arguments: toolArguments }),
      ).catch((err: unknown) => {
        throw new UserError(`calling ${name} failed: ${explainSignInError(err)}`);
      })) as CallToolResult;
      if (values.json) {
        out.out(JSON.stringify({ ...report, call: { tool: name, result } }, null, 2));
        return result.isError ? 1 : 0;
      }
      out.out(`${name} answered${result.isError ? ' with an error' : ''}:`);
      for (const line of describeResult(result)) out.out(`  ${line}`);
      return result.isError ? 1 : 0;
    } finally {
      await client.close().catch(() => {});
    }
  } finally {
    await session.close();
  }
}

async function listTools(client: Client): Promise<Tool[]> {
  const tools: Tool[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < 100; page++) {
    const result = await client.listTools(cursor === undefined ? undefined : { cursor });
    tools.push(...result.tools);
    cursor = result.nextCursor;
    if (cursor === undefined) break;
  }
  return tools;
}

function parseArguments(text: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new UsageError(`--arguments takes a JSON object, for example '{"message": "hi"}'`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new UsageError(`--arguments takes a JSON object, for example '{"message": "hi"}'`);
  return value as Record<string, unknown>;
}

/** " — first line of the description", shortened. */
function summary(tool: Tool): string {
  const first = (tool.description ?? tool.title ?? '').split('\n', 1)[0]?.trim() ?? '';
  if (!first) return '';
  return ` — ${visible(first.length > 100 ? `${first.slice(0, 99)}…` : first)}`;
}

function describeResult(result: CallToolResult): string[] {
  const lines: string[] = [];
  for (const item of result.content) {
    if (item.type === 'text') lines.push(...visible(item.text).split('\n'));
    else if (item.type === 'image' || item.type === 'audio')
      lines.push(`[${item.type} ${visible(item.mimeType)}, ${Math.floor((item.data.length * 3) / 4)} bytes]`);
    else if (item.type === 'resource') lines.push(`[resource ${visible(item.resource.uri)}]`);
    else if (item.type === 'resource_link') lines.push(`[link ${visible(item.uri)}]`);
  }
  if (result.structuredContent !== undefined) lines.push(visible(JSON.stringify(result.structuredContent)));
  return lines.length ? lines : ['(no content)'];
}

/** What a remote server sends is shown, never obeyed: control and format characters as \u…. */
function visible(text: string): string {
  return text.replace(
    /[^\P{Cc}\n\t]|[\p{Cf}\u2028\u2029]/gu,
    (c) => `\\u${c.codePointAt(0)?.toString(16).padStart(4, '0') ?? ''}`,
  );
}
