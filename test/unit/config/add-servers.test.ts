import { readFileSync, writeFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { addServers, NewServersError } from '../../../electron/core/config/add-servers.ts';
import { MemoryKeychain, type Keychain } from '../../../electron/core/secrets/keychain.ts';
import { tempHome, type TempHome } from '../../helpers/temp-home.ts';

/** addServers: what `switchboard add`, the UI's form and its pasted JSON all write servers with. */

let t: TempHome;
beforeEach(() => {
  t = tempHome();
});
afterEach(() => t.cleanup());

const TOKEN = `ghp_${'Ab1Cd2Ef3G'.repeat(4)}`;
const KEY = `sk-live-${'9e8d7c6b5a4f'.repeat(2)}`;

describe('addServers', () => {
  it('keeps comments, writes references only, and leaves the caller’s config as it was', async () => {
    writeFileSync(t.home.serversFile, '{\n  // mine\n  "mcpServers": {}\n}\n');
    const keychain = new MemoryKeychain();
    const config = { command: 'npx', args: ['-y', 'pkg'], env: { GITHUB_TOKEN: TOKEN } };
    const added = await addServers({
      serversFile: t.home.serversFile,
      keychain,
      servers: [{ name: 'gh', config }],
    });
    expect(added).toEqual([
      {
        name: 'gh',
        replaced: false,
        secrets: [expect.objectContaining({ key: 'GITHUB_TOKEN', name: 'gh-github_token', created: true })],
      },
    ]);
    const file = readFileSync(t.home.serversFile, 'utf8');
    expect(file).toContain('// mine');
    expect(file).toContain('"GITHUB_TOKEN": "${secret:gh-github_token}"');
    expect(file).not.toContain(TOKEN);
    expect(config.env.GITHUB_TOKEN).toBe(TOKEN);
  });

  it('refuses the whole batch before storing anything when one server has an issue', async () => {
    const keychain = new MemoryKeychain();
    const attempt = addServers({
      serversFile: t.home.serversFile,
      keychain,
      servers: [
        { name: 'ok', config: { command: 'node', env: { API_KEY: KEY } } },
        { name: 'bad name', config: { command: 'node' } },
        { name: 'no-command', config: { comand: 'node' } },
      ],
    });
    await expect(attempt).rejects.toBeInstanceOf(NewServersError);
    const err = (await attempt.catch((e: unknown) => e)) as NewServersError;
    expect(err.issues).toEqual([
      { server: 'bad name', about: 'name', path: [], message: expect.stringContaining('letters, digits') },
      {
        server: 'no-command',
        about: 'entry',
        path: [],
        message: expect.stringContaining('is "comand" meant to be "command"?'),
      },
    ]);
    expect(await keychain.list()).toEqual([]);
    expect(() => readFileSync(t.home.serversFile, 'utf8')).toThrow();
  });

  it('takes secrets it stored out of the keychain again when the batch cannot be finished', async () => {
    const keychain = new MemoryKeychain();
    await keychain.set('b-api_key', 'someone-else');
    // The keychain refuses the second secret (locked meanwhile, a full store): the first goes again.
    let sets = 0;
    const flaky: Keychain = {
      get: (name) => keychain.get(name),
      delete: (name) => keychain.delete(name),
      list: () => keychain.list(),
      held: (name, value) => keychain.held(name, value),
      set: async (name, value) => {
        if (++sets === 2) throw new Error('the keychain is locked');
        await keychain.set(name, value);
      },
    };
    await expect(
      addServers({
        serversFile: t.home.serversFile,
        keychain: flaky,
        servers: [
          { name: 'a', config: { command: 'node', env: { GITHUB_TOKEN: TOKEN } } },
          { name: 'b', config: { command: 'node', env: { API_KEY: KEY } } },
        ],
      }),
    ).rejects.toThrow('the keychain is locked');
    expect(await keychain.list()).toEqual(['b-api_key']);
    expect(() => readFileSync(t.home.serversFile, 'utf8')).toThrow();
  });

  it('replaces a server of the same name only when asked (switchboard add)', async () => {
    const keychain = new MemoryKeychain();
    const servers = [{ name: 'x', config: { command: 'node' } }];
    await addServers({ serversFile: t.home.serversFile, keychain, servers });
    await expect(addServers({ serversFile: t.home.serversFile, keychain, servers })).rejects.toThrow(
      'a server named "x" already exists',
    );
    const again = await addServers({
      serversFile: t.home.serversFile,
      keychain,
      servers: [{ name: 'x', config: { command: 'node', args: ['y'] } }],
      replace: true,
    });
    expect(again).toEqual([{ name: 'x', replaced: true, secrets: [] }]);
    expect(JSON.parse(readFileSync(t.home.serversFile, 'utf8'))).toMatchObject({
      mcpServers: { x: { command: 'node', args: ['y'] } },
    });
  });
});
