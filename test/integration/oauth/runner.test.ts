import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { systemClock } from '../../../electron/core/clock.ts';
import { SwitchboardOAuthProvider } from '../../../electron/core/oauth/provider.ts';
import { SignInStore } from '../../../electron/core/oauth/sign-in-store.ts';
import { MemoryKeychain } from '../../../electron/core/secrets/keychain.ts';
import { Supervisor } from '../../../electron/core/supervisor/supervisor.ts';
import type { DesiredServer } from '../../../electron/core/supervisor/types.ts';
import { startOAuthFixture, type OAuthFixture } from '../../helpers/oauth-server.ts';
import { waitForState } from '../supervisor/helpers.ts';

/**
 * A remote server's connection with OAuth (the supervisor and the provider, no bridge): what a 401
 * leads to depends on whether the server offers a sign-in.
 */

let supervisor: Supervisor | undefined;
let server: Server | undefined;
let fixture: OAuthFixture | undefined;

afterEach(async () => {
  await supervisor?.shutdown();
  server?.closeAllConnections();
  server?.close();
  fixture?.stop();
  supervisor = server = fixture = undefined;
});

function remote(url: string): DesiredServer {
  const auth = new SwitchboardOAuthProvider({
    server: 'remote',
    serverUrl: url,
    store: new SignInStore(new MemoryKeychain()),
    clock: systemClock,
  });
  return {
    name: 'remote',
    fingerprint: 'fp-remote',
    transport: 'http',
    prepare: async () => ({ transport: 'http', url, headers: {}, protocol: 'auto', redact: [], auth }),
  };
}

describe('remote servers with OAuth', () => {
  it('a server that offers a sign-in waits for one in needs-sign-in, without retrying', async () => {
    fixture = await startOAuthFixture();
    supervisor = new Supervisor();
    await supervisor.reconcile([remote(fixture.url)]);
    await waitForState(supervisor, 'remote', 'needs-sign-in');
    expect(supervisor.statusOf('remote')?.lastError).toBe(
      `it needs you to sign in at ${new URL(fixture.origin).host}: sign in to it in Switchboard`,
    );
    expect(supervisor.statusOf('remote')?.nextRetryAt).toBeNull();
    const { counts } = await fixture.state();
    expect(counts.registrations).toBe(0); // registering is part of a sign-in, which the person starts
    expect(supervisor.logs('remote').map((l) => l.text)).toContain(
      `needs sign-in: it needs you to sign in at ${new URL(fixture.origin).host}: sign in to it in Switchboard`,
    );
  });

  it('a 401 from a server that offers no OAuth is an error saying which credentials to give', async () => {
    // Every request, OAuth discovery included, gets 401 or 404: an API-key server behind a web server.
    server = createServer((req, res) => {
      if (req.url?.startsWith('/.well-known/'))
        res.writeHead(404, { 'content-type': 'text/html' }).end('<html>');
      else res.writeHead(401, { 'content-type': 'application/json' }).end('{"error":"unauthorized"}');
    });
    await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
    supervisor = new Supervisor();
    await supervisor.reconcile([remote(url)]);
    await waitForState(supervisor, 'remote', 'error');
    // What the MCP endpoint answered, not what an optional metadata document did.
    expect(supervisor.statusOf('remote')?.lastError).toMatch(
      /^cannot connect to .*: the server answered 401 Unauthorized \(application\/json\) to POST: it needs credentials or a sign-in; give the server the header it expects in servers.json/,
    );
  });
});
