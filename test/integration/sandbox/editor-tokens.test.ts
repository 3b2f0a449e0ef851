import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { MemoryKeychain } from '../../../electron/core/secrets/keychain.ts';
import { startHeadless, type Headless } from '../../../electron/headless/serve.ts';
import { fixtureServer, waitFor } from '../../helpers/servers.ts';
import { approveUntilRunning, hostileAttempts, type Attempts } from '../../helpers/real-sandbox.ts';
import { sandboxUnavailable } from '../../helpers/sandbox.ts';
import { tempHome, type TempHome } from '../../helpers/temp-home.ts';

// Issue 32 item 8: the files Switchboard writes bridge tokens into stay hidden from a sandboxed
// server, whatever its policy grants. A real `serve` (editor sync on) writes a real token into
// Cursor's ~/.cursor/mcp.json and VS Code's mcp.json; the hostile fixture, in real bubblewrap, is
// given the whole home (an argument naming it, as a bundle's ${HOME}; or servers.json) and reads.
const skip = sandboxUnavailable() !== undefined;

let t: TempHome | undefined;
let h: Headless | undefined;

afterEach(async () => {
  await h?.stop();
  h = undefined;
  t?.cleanup();
  t = undefined;
});

async function attempts(grant: (home: string) => { args?: string[]; sandbox?: unknown }): Promise<Attempts> {
  t = tempHome();
  const home = t.env.HOME ?? '';
  const cursor = join(home, '.cursor', 'mcp.json');
  const vscode = join(home, '.config', 'Code', 'User', 'mcp.json');
  // installed editors (their folders), so editor sync writes their files
  mkdirSync(join(home, '.cursor'), { recursive: true });
  mkdirSync(join(home, '.config', 'Code', 'User'), { recursive: true });
  writeFileSync(join(home, 'notes.txt'), 'the person’s notes\n');
  const fixture = fixtureServer('hostile-server.mjs');
  const extra = grant(home);
  t.writeServers({
    mcpServers: {
      hostile: {
        command: fixture.command,
        args: [...fixture.args, ...(extra.args ?? [])],
        env: {
          TARGET_FILES: [
            cursor,
            vscode,
            join(t.home.tokens, 'editors', 'cursor'),
            join(home, 'notes.txt'),
          ].join(':'),
        },
        ...(extra.sandbox === undefined ? {} : { sandbox: extra.sandbox }),
      },
    },
  });
  h = await startHeadless({
    home: t.home,
    keychain: new MemoryKeychain(),
    env: t.env,
    port: 0,
    editorSync: { log: () => {} },
  });
  const core = h.core;
  await approveUntilRunning(core, 'hostile');
  // the editors' files now hold a bridge token (written while the server already ran: a rename)
  await waitFor(
    () => [cursor, vscode].every((f) => readOrEmpty(f).includes('Bearer ')),
    30_000,
    'tokens in the editors’ files',
  );
  return hostileAttempts(core);
}

function readOrEmpty(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
}

function expectTokensHidden(tried: Attempts): void {
  const files = Object.entries(tried).filter(([name]) => name.startsWith('file '));
  expect(files).toHaveLength(4);
  for (const [name, attempt] of files) {
    if (name.endsWith('notes.txt'))
      expect(attempt, name).toMatchObject({ ok: true }); // the home is readable
    else {
      expect(attempt, name).toMatchObject({ ok: false });
      expect(attempt.said, name).not.toContain('Bearer');
    }
  }
}

describe.skipIf(skip)("editors' settings files and Switchboard's tokens, seen from a sandbox", () => {
  it('stay hidden from a server whose argument names the home (a bundle’s ${HOME})', async () => {
    expectTokensHidden(await attempts((home) => ({ args: [home] })));
  });

  it('stay hidden even when servers.json grants the home, and names the files themselves', async () => {
    expectTokensHidden(
      await attempts((home) => ({
        sandbox: { read: ['~', join(home, '.cursor', 'mcp.json')] },
      })),
    );
  });
});
