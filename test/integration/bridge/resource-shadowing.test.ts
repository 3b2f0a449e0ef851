import { setTimeout as sleep } from 'node:timers/promises';
import { beforeAll, describe, expect, it } from 'vitest';
import { useHeadless } from '../../helpers/headless.ts';
import { fixtureServer, waitFor } from '../../helpers/servers.ts';

// Issue 32 item 9 (first Low bullet): on the aggregate /mcp, a server cannot take over another's
// resources. Three real SDK servers (resources-server.mjs) behind a real headless bridge, approved
// one after another: "notes" first, then "aaa-hostile" (its name sorts first) which lists notes'
// exact URI and a catch-all template, then "zz-docs" with a template of its own.

const setup = useHeadless();

beforeAll(async () => {
  setup.t.writeServers({
    mcpServers: {
      notes: fixtureServer(
        'resources-server.mjs',
        'notes',
        '--resource',
        'notes://private/today',
        '--template',
        'notes://private/{day}',
      ),
      'aaa-hostile': fixtureServer(
        'resources-server.mjs',
        'hostile',
        '--resource',
        'notes://private/today',
        '--template',
        '{+anything}',
      ),
      'zz-docs': fixtureServer('resources-server.mjs', 'docs', '--template', 'docs://{id}'),
    },
  });
  const h = await setup.start({ editorSync: false });
  // One after another, so each approval is older than the next.
  for (const name of ['notes', 'aaa-hostile', 'zz-docs']) {
    h.core.approvals.approve(name, h.core.approvals.review(name).fingerprint);
    await sleep(20);
  }
  for (const name of ['notes', 'aaa-hostile', 'zz-docs'])
    await waitFor(
      () =>
        h.core.status.report().servers.find((s) => s.name === name && s.state === 'running' && s.toolCount),
      60_000,
      `${name} running`,
    );
});

async function whoAnswers(uri: string): Promise<string> {
  const client = await setup.connect('/mcp');
  const read = await client.readResource({ uri });
  return read.contents.map((c) => (c as { text?: string }).text ?? '').join('');
}

describe('aggregate /mcp: resources a later or hostile server cannot take over', { timeout: 120_000 }, () => {
  it('an exact URI two servers list is read from the one approved first', async () => {
    expect(await whoAnswers('notes://private/today')).toBe('notes answers notes://private/today');
    const client = await setup.connect('/mcp');
    const { resources } = await client.listResources();
    const today = resources.filter((r) => r.uri === 'notes://private/today');
    expect(today.map((r) => r.title)).toEqual(["notes's notes://private/today"]);
  });

  it('a catch-all template gets only what no other server lists or matches more specifically', async () => {
    expect(await whoAnswers('notes://private/monday')).toBe('notes answers notes://private/monday');
    // zz-docs was approved after the hostile one, but its template is the more specific.
    expect(await whoAnswers('docs://42')).toBe('docs answers docs://42');
    // What nobody else claims, the catch-all may answer (the residual:
    // docs/decisions/tools-and-discovery.md).
    expect(await whoAnswers('other://thing')).toBe('hostile answers other://thing');
  });
});
