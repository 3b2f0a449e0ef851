import { readFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CatalogRoutes } from '../../../shared/catalog.ts';
import { ipcRequestProblem } from '../../../shared/ipc.ts';
import { UiRoutes } from '../../../shared/ui-api.ts';
import { MemoryKeychain } from '../../../electron/core/secrets/keychain.ts';
import { startHeadless, type Headless } from '../../../electron/headless/serve.ts';
import { recorded, startFakeRegistry, type FakeRegistry } from '../../helpers/fake-registry.ts';
import { tempHome, type TempHome } from '../../helpers/temp-home.ts';

/**
 * /api/catalog/… over real HTTP against an in-process `serve` (the routes the UI uses, also over the
 * desktop window's IPC), with a local fake of the MCP Registry.
 */

let t: TempHome;
let h: Headless;
let keychain: MemoryKeychain;
let registry: FakeRegistry;
let base: string;
let control: string;

beforeEach(async () => {
  t = tempHome();
  keychain = new MemoryKeychain();
  registry = await startFakeRegistry([...recorded('servers').values(), ...recorded('e2e').values()]);
  h = await startHeadless({
    home: t.home,
    keychain,
    env: { ...t.env, SWITCHBOARD_REGISTRY_URL: registry.url },
    port: 0,
    editorSync: false,
  });
  base = `http://127.0.0.1:${h.port}`;
  control = h.tokens.controlToken();
});

afterEach(async () => {
  await h.stop();
  await registry.close();
  t.cleanup();
});

async function api(method: string, path: string, body?: unknown) {
  const res = await fetch(base + path, {
    method,
    headers: {
      authorization: `Bearer ${control}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: (await res.json().catch(() => undefined)) as Record<string, unknown> };
}

const ECHO = 'io.github.switchboard-fixtures/catalog-echo';
const install = {
  server: ECHO,
  version: '1.0.0',
  option: 'package:0',
  name: 'echo',
  values: { 'arg:package:0': 'hello' },
  secrets: { 'env:ECHO_API_TOKEN': 'tok-1' },
};

describe('the catalog routes', () => {
  it('search and details', async () => {
    const page = await api('POST', CatalogRoutes.search, { search: 'echo' });
    expect(page.status).toBe(200);
    expect(page.body).toMatchObject({ registry: registry.url, fromCache: false, entries: [{ name: ECHO }] });
    const detail = await api('POST', CatalogRoutes.server, { name: ECHO });
    expect(detail.body).toMatchObject({
      entry: { name: ECHO, version: '1.0.0' },
      suggestedName: 'catalog-echo',
      recommended: 'package:0',
    });
  });

  it('installs pending approval, from the catalog, and the approval shows exactly that', async () => {
    const dry = await api('POST', CatalogRoutes.install, {
      ...install,
      secrets: { 'env:ECHO_API_TOKEN': '•' },
      dryRun: true,
    });
    expect(dry.body).toMatchObject({ installed: false });
    expect(await keychain.list()).toEqual([]);
    const done = await api('POST', CatalogRoutes.install, install);
    expect(done.status).toBe(200);
    expect(done.body).toMatchObject({ installed: true, plan: { name: 'echo' } });
    expect(await keychain.get('echo-echo_api_token')).toBe('tok-1');
    expect(readFileSync(t.home.serversFile, 'utf8')).toContain('"${secret:echo-echo_api_token}"');
    const approvals = (await api('GET', UiRoutes.approvals)).body.approvals as {
      name: string;
      source: string;
      lines: string[];
    }[];
    expect(approvals).toHaveLength(1);
    expect(approvals[0]).toMatchObject({ name: 'echo', source: 'catalog' });
    // The card shows what the catalog's preview showed.
    expect(approvals[0]?.lines).toEqual((dry.body.plan as { lines: string[] }).lines);
  });

  it('answers 400 with the problems at their fields, 404 for an unknown server, 502 when the registry fails', async () => {
    const missing = await api('POST', CatalogRoutes.install, { ...install, values: {}, secrets: {} });
    expect(missing.status).toBe(400);
    expect(missing.body.issues).toEqual([
      { path: ['arg:package:0'], message: 'greeting is required' },
      { path: ['env:ECHO_API_TOKEN'], message: 'ECHO_API_TOKEN is required' },
    ]);
    const unknown = await api('POST', CatalogRoutes.server, { name: 'io.example/none' });
    expect(unknown).toEqual({
      status: 404,
      body: { error: `the registry at ${registry.url} has no server io.example/none` },
    });
    registry.mode = 'error500';
    const down = await api('POST', CatalogRoutes.server, { name: 'io.github.microsoft/playwright-mcp' });
    expect(down.status).toBe(502);
    expect(down.body.error).toContain('answered HTTP 503');
    // A search is answered from what the cache holds (here: nothing that matches), with why.
    const search = await api('POST', CatalogRoutes.search, { search: 'playwright' });
    expect(search).toMatchObject({ status: 200, body: { fromCache: true, entries: [] } });
    expect(search.body.problem).toContain('answered HTTP 503');
    const bad = await api('POST', CatalogRoutes.search, { search: 7 });
    expect(bad.status).toBe(400);
  });

  it('shows and saves the registry address; the environment still wins', async () => {
    expect((await api('GET', CatalogRoutes.registry)).body).toMatchObject({
      url: registry.url,
      source: 'env',
      configured: null,
    });
    const saved = await api('PUT', CatalogRoutes.registry, { url: 'https://registry.example.com/' });
    expect(saved.body).toMatchObject({
      url: registry.url,
      source: 'env',
      configured: 'https://registry.example.com',
    });
    const refused = await api('PUT', CatalogRoutes.registry, { url: 'javascript:alert(1)' });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toContain('is not an http:// or https:// address');
  });
});

describe('the desktop window may send the catalog requests over IPC', () => {
  it('accepts the catalog routes with their bodies and nothing else', () => {
    expect(
      ipcRequestProblem({ method: 'POST', path: CatalogRoutes.search, body: { search: 'x' } }),
    ).toBeUndefined();
    expect(
      ipcRequestProblem({ method: 'POST', path: CatalogRoutes.server, body: { name: ECHO } }),
    ).toBeUndefined();
    expect(ipcRequestProblem({ method: 'POST', path: CatalogRoutes.install, body: install })).toBeUndefined();
    expect(ipcRequestProblem({ method: 'GET', path: CatalogRoutes.registry })).toBeUndefined();
    expect(
      ipcRequestProblem({ method: 'PUT', path: CatalogRoutes.registry, body: { url: null } }),
    ).toBeUndefined();
    expect(
      ipcRequestProblem({ method: 'POST', path: CatalogRoutes.install, body: { ...install, extra: 1 } }),
    ).toMatch(/^invalid body for POST \/api\/catalog\/install/);
    expect(ipcRequestProblem({ method: 'GET', path: CatalogRoutes.search })).toBe(
      'GET is not allowed on /api/catalog/search',
    );
  });
});
