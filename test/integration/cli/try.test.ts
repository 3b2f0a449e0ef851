import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SIGN_IN_KEYCHAIN_SERVICE } from '../../../electron/core/oauth/sign-in-store.ts';
import { OsKeychain } from '../../../electron/core/secrets/keychain.ts';
import { TryResultSchema } from '../../../shared/try-result.ts';
import { runCli } from '../../helpers/cli.ts';
import { startOAuthFixture, type OAuthFixture } from '../../helpers/oauth-server.ts';
import { defined, NODE } from '../../helpers/servers.ts';
import { tempHome, type TempHome } from '../../helpers/temp-home.ts';

/** `switchboard try URL …`: a remote server checked as Switchboard would connect to it, then forgotten. */

let t: TempHome;
let fixture: OAuthFixture;
let apiKeyServer: ChildProcess;
let apiKeyUrl: string;

beforeAll(async () => {
  t = tempHome();
  fixture = await startOAuthFixture({ approveAtOnce: true });
  // A server that wants an API key, and offers no OAuth.
  const script = fileURLToPath(new URL('../../fixtures/remote-server.mjs', import.meta.url));
  apiKeyServer = spawn(NODE, [script, '0'], {
    env: { ...process.env, REMOTE_SECRET: 'the-api-key' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const port = await new Promise<number>((resolve) =>
    defined(apiKeyServer.stdout, 'stdout').on('data', (d: Buffer) => {
      const m = /listening (\d+)/.exec(d.toString());
      if (m) resolve(Number(m[1]));
    }),
  );
  apiKeyUrl = `http://127.0.0.1:${port}/mcp`;
});

afterAll(() => {
  fixture?.stop();
  apiKeyServer?.kill();
  t?.cleanup();
});

describe('switchboard try', () => {
  it('signs in when the server asks, prints its name, version and tools, calls one, and keeps nothing', async () => {
    // The CLI's compile cache (switchboard/cache) aside, `try` leaves no file behind.
    const files = () =>
      readdirSync(t.dir, { recursive: true })
        .map(String)
        .filter((f) => !f.startsWith(join('switchboard', 'cache')))
        .sort();
    const before = files();
    const result = await runCli(
      ['try', fixture.url, '--call', 'echo', '--arguments', '{"message": "checking"}'],
      { ...t.env, SWITCHBOARD_SIGN_IN: 'fetch' },
    );
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe(
      [
        'Connected to oauth-fixture 1.0.0 over Streamable HTTP.',
        'Tools (1):',
        '  echo',
        'echo answered:',
        '  signed-in echo: checking',
        '',
      ].join('\n'),
    );
    expect(result.stderr).toContain('asks for a sign-in');
    const { counts } = await fixture.state();
    expect(counts.codeExchanges).toBeGreaterThanOrEqual(1);
    // Sign-ins made by `try` are not kept: not in the keychain, not in a file.
    expect(await new OsKeychain({ service: SIGN_IN_KEYCHAIN_SERVICE }).get('try')).toBeUndefined();
    expect(files()).toEqual(before);
  });

  it('exits 1 when the call fails, and 0 with the tools when no call is asked for', async () => {
    const env = { ...t.env, SWITCHBOARD_SIGN_IN: 'fetch' };
    const failed = await runCli(['try', fixture.url, '--call', 'no-such-tool'], env);
    expect(failed.code).toBe(1);
    expect(failed.stdout + failed.stderr).toMatch(/no-such-tool/);
    const listed = await runCli(['try', fixture.url], env);
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toContain('  echo');
  });

  it('says what a server that wants another credential answered, with a header to give it', async () => {
    const refused = await runCli(['try', apiKeyUrl], t.env);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/cannot connect to .*401/);
    const keyed = await runCli(['try', apiKeyUrl, '--header', 'Authorization=Bearer the-api-key'], t.env);
    expect(keyed.code, keyed.stderr).toBe(0);
    expect(keyed.stdout).toContain('Connected to remote-fixture 1.0.0');
  });

  it('--json prints what the server said as one document (TryResultSchema), its call answer included', async () => {
    const result = await runCli(
      ['try', fixture.url, '--call', 'echo', '--arguments', '{"message": "as json"}', '--json'],
      { ...t.env, SWITCHBOARD_SIGN_IN: 'fetch' },
    );
    expect(result.code, result.stderr).toBe(0);
    const report = TryResultSchema.parse(JSON.parse(result.stdout));
    expect(report).toMatchObject({
      url: fixture.url,
      server: { name: 'oauth-fixture', version: '1.0.0' },
      transport: 'streamable-http',
      call: { tool: 'echo' },
    });
    expect(report.tools.map((tool) => tool.name)).toContain('echo');
    expect(report.tools.find((tool) => tool.name === 'echo')).toHaveProperty('inputSchema');
    expect(JSON.stringify(report.call?.result.content)).toContain('as json');
    // The sign-in's messages are for people: on stderr, not in the document.
    expect(result.stderr).toContain('asks for a sign-in');
  });

  it('refuses wrong usage with exit code 2 and says what is wrong', async () => {
    const cases: [string[], RegExp][] = [
      [['try'], /usage: switchboard try URL/],
      [['try', 'not a url'], /is not a URL/],
      [['try', 'ftp://example.com/mcp'], /only http\(s\)/],
      [['try', fixture.url, '--client-secret', 's'], /--client-secret needs --client-id/],
      [['try', fixture.url, '--arguments', '{}'], /--arguments needs --call/],
      [['try', fixture.url, '--call', 'echo', '--arguments', '[1]'], /JSON object/],
      [['try', fixture.url, '--client-metadata-url', 'http://example.com/c.json'], /https/],
      [['try', fixture.url, '--client-metadata-url', 'https://example.com/'], /path/],
      [['try', fixture.url, '--header', 'novalue'], /KEY=VALUE/],
    ];
    for (const [args, message] of cases) {
      const result = await runCli(args, t.env);
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr, args.join(' ')).toMatch(message);
    }
  });
});
