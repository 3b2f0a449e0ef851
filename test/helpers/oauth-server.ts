import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { defined, NODE } from './servers.ts';

const SCRIPT = fileURLToPath(new URL('../fixtures/oauth-server.mjs', import.meta.url));

const StateSchema = z.object({
  counts: z.object({
    registrations: z.number(),
    authorizations: z.number(),
    codeExchanges: z.number(),
    refreshes: z.number(),
    refused: z.number(),
    mcpRequests: z.number(),
  }),
  issued: z.object({
    accessTokens: z.array(z.string()),
    refreshTokens: z.array(z.string()),
    clientSecrets: z.array(z.string()),
  }),
  authorizedClients: z.array(z.string()),
});
export type OAuthFixtureState = z.infer<typeof StateSchema>;

/** test/fixtures/oauth-server.mjs: an OAuth-protected MCP server (the SDK's own auth router). */
export interface OAuthFixture {
  /** the MCP endpoint (…/mcp) */
  url: string;
  origin: string;
  state(): Promise<OAuthFixtureState>;
  /** every issued access and refresh token and client secret: none may be found in a file */
  issuedSecrets(): Promise<string[]>;
  revokeRefreshTokens(): Promise<void>;
  /** every access token issued so far is refused from now on (the server answers 401) */
  revokeAccessTokens(): Promise<void>;
  stop(): void;
}

export async function startOAuthFixture(
  options: { tokenTtlSeconds?: number; approveAtOnce?: boolean; cimd?: boolean; modern?: boolean } = {},
): Promise<OAuthFixture> {
  const args = [SCRIPT, '--port', '0'];
  if (options.tokenTtlSeconds !== undefined) args.push('--token-ttl', String(options.tokenTtlSeconds));
  if (options.approveAtOnce) args.push('--approve-at-once');
  if (options.cimd) args.push('--cimd');
  if (options.modern) args.push('--modern');
  const child: ChildProcess = spawn(NODE, args, { stdio: ['ignore', 'pipe', 'inherit'] });
  const stdout = defined(child.stdout, 'fixture stdout');
  const first = await new Promise<string>((resolve, reject) => {
    let text = '';
    stdout.on('data', (d: Buffer) => {
      text += d.toString();
      if (text.includes('\n')) resolve(text.split('\n', 1)[0] ?? '');
    });
    child.once('exit', (code) => reject(new Error(`oauth fixture exited with ${code}`)));
  });
  const { url, origin } = z.object({ url: z.string(), origin: z.string() }).parse(JSON.parse(first));
  const state = async () => StateSchema.parse(await (await fetch(`${origin}/test/state`)).json());
  return {
    url,
    origin,
    state,
    async issuedSecrets() {
      const { issued } = await state();
      return [...issued.accessTokens, ...issued.refreshTokens, ...issued.clientSecrets];
    },
    async revokeRefreshTokens() {
      await fetch(`${origin}/test/revoke-refresh-tokens`, { method: 'POST' });
    },
    async revokeAccessTokens() {
      await fetch(`${origin}/test/revoke-access-tokens`, { method: 'POST' });
    },
    stop: () => child.kill(),
  };
}

/** Every file under `dir` (recursively) that contains one of `secrets`, with which. */
export function filesContaining(dir: string, secrets: string[]): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const file = join(entry.parentPath, entry.name);
    let text: string;
    try {
      text = readFileSync(file, 'latin1');
    } catch {
      continue;
    }
    for (const secret of secrets)
      if (text.includes(secret)) found.push(`${file} holds ${secret.slice(0, 9)}…`);
  }
  return found;
}
