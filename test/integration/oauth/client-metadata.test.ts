import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../helpers/cli.ts';
import { useOAuthServe } from '../../helpers/oauth-serve.ts';

/**
 * Switchboard's Client ID Metadata Document URL: a setting (Settings, state.json), used where the
 * authorization server takes such documents instead of registering, and overridable per sign-in.
 */

const s = useOAuthServe('cimd');
const NAME = s.name;
const DOCUMENT = 'https://switchboard.example.com/oauth/client-metadata.json';

describe('the Client ID Metadata Document URL', () => {
  it('is a setting, checked when saved, used by sign-ins, and overridable per sign-in', async () => {
    await s.prepare({ approveAtOnce: true, cimd: true });
    await s.startServe();
    const { t, fixture, port } = s;
    const control = readFileSync(join(t.home.tokens, 'control'), 'utf8').trim();
    const api = async (method: string, path: string, body?: unknown) => {
      const res = await fetch(`http://127.0.0.1:${port}${path}`, {
        method,
        headers: { authorization: `Bearer ${control}`, 'content-type': 'application/json' },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      return { status: res.status, body: (await res.json()) as Record<string, unknown> };
    };

    expect((await api('GET', '/api/settings')).body.clientMetadataUrl).toBeNull();
    const refused = await api('PUT', '/api/settings', { clientMetadataUrl: 'http://example.com/c.json' });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toBe('Client ID Metadata Document URL: it must be an https:// address');
    const saved = await api('PUT', '/api/settings', { clientMetadataUrl: DOCUMENT });
    expect(saved.status).toBe(200);
    expect(saved.body.clientMetadataUrl).toBe(DOCUMENT);
    expect(JSON.parse(readFileSync(t.home.stateFile, 'utf8'))).toMatchObject({
      signIn: { clientMetadataUrl: DOCUMENT },
    });

    expect((await runCli(['approve', NAME, '--yes'], t.env)).code).toBe(0);
    const login = await runCli(['login', NAME], s.signInEnv());
    expect(login.code, login.stderr).toBe(0);
    let state = await fixture.state();
    // The authorization server took the document's URL as the client: no registration.
    expect(state.authorizedClients).toEqual([DOCUMENT]);
    expect(state.counts.registrations).toBe(0);

    // Per sign-in: another document for this one (the UI and the API take one; try has --client-metadata-url).
    const other = 'https://other.example.com/switchboard.json';
    const started = await api('POST', `/api/servers/${NAME}/sign-in`, {
      clientMetadataUrl: other,
      fresh: true,
    });
    expect(started.body.status).toBe('browser');
    expect(new URL(String(started.body.url)).searchParams.get('client_id')).toBe(other);
    state = await fixture.state();
    expect(state.authorizedClients).toEqual([DOCUMENT]); // not followed: nobody opened that page

    // Cleared: registration again.
    expect(
      (await api('PUT', '/api/settings', { clientMetadataUrl: null })).body.clientMetadataUrl,
    ).toBeNull();
  });
});
