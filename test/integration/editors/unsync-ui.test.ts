import { readFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EditorsResponseSchema, EditorUnsyncResultSchema, UiRoutes } from '../../../shared/ui-api.ts';
import { heldBackPlaceholder } from '../../../electron/core/editors/give-back.ts';
import { OsKeychain } from '../../../electron/core/secrets/keychain.ts';
import { startHeadless, type Headless } from '../../../electron/headless/serve.ts';
import { runCli } from '../../helpers/cli.ts';
import { fixtureServer, waitFor } from '../../helpers/servers.ts';
import { useSecretsCleanup } from '../../helpers/secrets.ts';
import { tempHome, type TempHome } from '../../helpers/temp-home.ts';
import { install } from './helpers.ts';

// The Editors view's unsync goes through POST /api/editors/<id>/unsync on a running Switchboard: it
// gives back what import replaced exactly as the CLI does, and GET /api/editors says beforehand what
// it will remove and give back, and which secrets are at stake.

const TOKEN = 'ghp_' + 'Zq8vN3kLr2TfXw7HcYp1BmDs9GaUe4JoQiRt';
const github = fixtureServer('env-echo-server.mjs', 'UIVIEW_GH_TOKEN');
const memory = fixtureServer('mini-server.mjs');
const keychain = new OsKeychain();

let t: TempHome;
let h: Headless | undefined;
beforeEach(() => {
  t = tempHome();
});
afterEach(async () => {
  await h?.stop();
  h = undefined;
  t.cleanup();
});
useSecretsCleanup(keychain, '_uiview_gh_token');

describe('unsync from the Editors view (control API)', () => {
  it('says what it will do, then gives back Zed’s and Claude Desktop’s entries: without secrets, then with them, byte for byte', async () => {
    const zedOriginal = `// mine
{
  "context_servers": {
    "gh": { "command": ${JSON.stringify(github.command)}, "args": ${JSON.stringify(github.args)}, "env": { "UIVIEW_GH_TOKEN": "${TOKEN}" } }, // pasted
  },
}
`;
    const claudeOriginal = `{
  "mcpServers": {
    "memory": { "command": ${JSON.stringify(memory.command)}, "args": ${JSON.stringify(memory.args)} }
  },
  "globalShortcut": "Alt+Space"
}
`;
    const zed = install(t, 'zed', zedOriginal);
    const claude = install(t, 'claude-desktop', claudeOriginal);
    const imported = await runCli(['import', '--yes'], t.env);
    expect(imported.code, imported.stdout + imported.stderr).toBe(0);

    h = await startHeadless({ home: t.home, keychain, env: t.env, port: 0, editorSync: { log: () => {} } });
    await h.editors?.ready;
    const base = `http://127.0.0.1:${h.port}`;
    const control = h.tokens.controlToken();
    const api = async (method: string, path: string, body?: unknown) => {
      const res = await fetch(base + path, {
        method,
        headers: {
          authorization: `Bearer ${control}`,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      return { status: res.status, body: (await res.json()) as unknown };
    };
    const view = async (id: string) => {
      const { editors } = EditorsResponseSchema.parse((await api('GET', UiRoutes.editors)).body);
      return editors.find((e) => e.id === id);
    };

    // Before: what unsync would remove and give back, with the secret at stake; nothing written.
    const zedFile = readFileSync(zed, 'utf8');
    expect((await view('zed'))?.unsync).toEqual({
      removes: ['gh', 'memory'],
      restores: [{ entry: 'gh', secrets: ['gh-uiview_gh_token'] }],
      heldBack: [],
    });
    expect((await view('claude-desktop'))?.unsync).toEqual({
      removes: ['gh', 'memory'],
      restores: [{ entry: 'memory', secrets: [] }],
      heldBack: [],
    });
    expect(readFileSync(zed, 'utf8')).toBe(zedFile);

    // Bad requests: a clear refusal, nothing touched.
    expect((await api('POST', UiRoutes.editorUnsync('zed'), {})).status).toBe(400);
    expect((await api('POST', UiRoutes.editorUnsync('emacs'), { restoreSecrets: false })).status).toBe(404);
    expect(readFileSync(zed, 'utf8')).toBe(zedFile);

    // Without the secret: the entry is back, its secret's place says where it is.
    const held = await api('POST', UiRoutes.editorUnsync('zed'), { restoreSecrets: false });
    expect(held.status).toBe(200);
    expect(EditorUnsyncResultSchema.parse(held.body)).toEqual({
      ok: true,
      editor: 'zed',
      written: true,
      removed: ['gh', 'memory'],
      restored: ['gh'],
      secretsPutBack: [],
      secretsHeldBack: ['gh-uiview_gh_token'],
      problem: null,
    });
    expect(readFileSync(zed, 'utf8')).toBe(
      zedOriginal.replace(TOKEN, heldBackPlaceholder('gh-uiview_gh_token', 'zed')),
    );
    const after = await view('zed');
    expect(after?.state).toBe('disabled');
    expect(after?.unsync).toEqual({ removes: [], restores: [], heldBack: ['gh-uiview_gh_token'] });

    // "Put secrets back": the file is the original again.
    const putBack = EditorUnsyncResultSchema.parse(
      (await api('POST', UiRoutes.editorUnsync('zed'), { restoreSecrets: true })).body,
    );
    expect(putBack.secretsPutBack).toEqual(['gh-uiview_gh_token']);
    expect(readFileSync(zed, 'utf8')).toBe(zedOriginal);
    expect((await view('zed'))?.unsync).toEqual({ removes: [], restores: [], heldBack: [] });

    // Claude Desktop, asked with its secrets at once (it has none): the original bytes.
    const desktop = EditorUnsyncResultSchema.parse(
      (await api('POST', UiRoutes.editorUnsync('claude-desktop'), { restoreSecrets: true })).body,
    );
    expect(desktop.restored).toEqual(['memory']);
    expect(readFileSync(claude, 'utf8')).toBe(claudeOriginal);
    // The running Switchboard leaves both alone from now on.
    await new Promise((r) => setTimeout(r, 300));
    await waitFor(() => readFileSync(zed, 'utf8') === zedOriginal, 1_000, 'Zed left alone');
    expect(readFileSync(claude, 'utf8')).toBe(claudeOriginal);
  });
});
