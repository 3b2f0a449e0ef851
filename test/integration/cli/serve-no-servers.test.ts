import { existsSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startServe, stopProcess } from '../../helpers/cli.ts';
import { fixtureServer } from '../../helpers/servers.ts';
import { tempHome, type TempHome } from '../../helpers/temp-home.ts';

// Issue 36 item 9: `serve` on a home without servers.json said "0 server(s) configured in
// …/servers.json". It says the file does not exist yet and how to add a server. The real `serve`.

let t: TempHome;

beforeEach(() => {
  t = tempHome();
});

afterEach(() => t.cleanup());

async function banner(): Promise<string> {
  const serve = await startServe(t.env);
  try {
    return serve.output();
  } finally {
    await stopProcess(serve.child);
  }
}

describe('what serve says of its servers', () => {
  it('says servers.json does not exist yet, and how to add a server', async () => {
    expect(existsSync(t.home.serversFile)).toBe(false);
    const said = await banner();
    expect(said).toContain(
      `No servers yet: ${t.home.serversFile} does not exist yet. Add one with: switchboard add NAME -- COMMAND ARGS…\n`,
    );
    expect(said).not.toContain('0 server(s)');
  });

  it('counts the servers of a servers.json, in plain words', async () => {
    t.writeServers({
      mcpServers: { one: fixtureServer('mini-server.mjs'), two: fixtureServer('mini-server.mjs') },
    });
    expect(await banner()).toContain(
      `2 servers configured in ${t.home.serversFile}; Ctrl+C stops them all.\n`,
    );
  });
});
