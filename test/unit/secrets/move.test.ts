import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readServerValue } from '../../../electron/core/config/edit.ts';
import { UserError } from '../../../electron/core/errors.ts';
import { MemoryKeychain, type Keychain } from '../../../electron/core/secrets/keychain.ts';
import { moveSecret } from '../../../electron/core/config/move-secret.ts';
import { defaultSecretName } from '../../../electron/core/secrets/secret-names.ts';
import { findLiteralSecrets } from '../../../electron/core/secrets/detect.ts';
import { resolveRecord } from '../../../electron/core/secrets/references.ts';

const TOKEN = 'ghp_JahwcXGXlOX8qQzHQMxQzyxLELDfx4SHKvtJ';
const SERVERS = `{
  // work servers
  "mcpServers": {
    "github": {
      "command": "npx",
      "args": ["-y", "@modelcontextprotocol/server-github"],
      "env": {
        "GITHUB_TOKEN": "${TOKEN}", // from github.com/settings/tokens
        "LOG_LEVEL": "info"
      }
    },
    "docs": { "url": "https://example.com/mcp", "headers": { "Authorization": "Bearer abc123" } },
    "done": { "command": "x", "env": { "API_KEY": "\${secret:done}" } }
  }
}
`;

let dir: string;
let file: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'switchboard-move-'));
  file = join(dir, 'servers.json');
  writeFileSync(file, SERVERS);
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

async function rejection(promise: Promise<unknown>): Promise<UserError> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(UserError);
  return err as UserError;
}

describe('moving a literal secret into the keychain', () => {
  it('stores the value, writes the reference, keeps the comments, and the server gets the same value', async () => {
    const keychain = new MemoryKeychain();
    const name = await moveSecret({ serversFile: file, keychain, server: 'github', key: 'GITHUB_TOKEN' });
    expect(name).toBe('github-github_token');
    expect(await keychain.get(name)).toBe(TOKEN);
    const text = readFileSync(file, 'utf8');
    expect(text).toBe(SERVERS.replace(TOKEN, '${secret:github-github_token}'));
    expect(text).not.toContain(TOKEN);

    const env = readServerValue(file, 'github', ['env']) as Record<string, string>;
    expect(findLiteralSecrets({ env })).toEqual([]);
    const resolved = await resolveRecord(env, { keychain, env: {}, server: 'github', field: 'env' });
    expect(resolved.values.GITHUB_TOKEN).toBe(TOKEN);
  });

  it('keeps the auth scheme of a header in the file and stores only the credential', async () => {
    const keychain = new MemoryKeychain();
    const name = await moveSecret({
      serversFile: file,
      keychain,
      server: 'docs',
      key: 'authorization',
      secretName: 'docs',
    });
    expect(name).toBe('docs');
    expect(await keychain.get('docs')).toBe('abc123');
    expect(readServerValue(file, 'docs', ['headers'])).toEqual({ Authorization: 'Bearer ${secret:docs}' });
  });

  it('says what is wrong for an unknown server or key, or a value that is already a reference', async () => {
    const keychain = new MemoryKeychain();
    expect(
      (await rejection(moveSecret({ serversFile: file, keychain, server: 'nope', key: 'X' }))).message,
    ).toContain('no server named "nope"');
    const unknownKey = await rejection(
      moveSecret({ serversFile: file, keychain, server: 'github', key: 'GH_TOKEN' }),
    );
    expect(unknownKey.message).toBe('server "github" has no env variable "GH_TOKEN"');
    expect(unknownKey.hint).toBe('its env variables: GITHUB_TOKEN, LOG_LEVEL');
    expect(
      (await rejection(moveSecret({ serversFile: file, keychain, server: 'done', key: 'API_KEY' }))).message,
    ).toContain('already uses');
    expect(readFileSync(file, 'utf8')).toBe(SERVERS);
    expect(await keychain.list()).toEqual([]);
  });

  it('leaves servers.json untouched when the keychain cannot store the secret', async () => {
    const unreachable: Keychain = {
      get: () => Promise.resolve(undefined),
      set: () =>
        Promise.reject(
          new UserError('could not store secret: no Secret Service reachable on the D-Bus session bus'),
        ),
      delete: () => Promise.resolve(false),
      list: () => Promise.resolve([]),
      held: () => Promise.resolve('none'),
    };
    const err = await rejection(
      moveSecret({ serversFile: file, keychain: unreachable, server: 'github', key: 'GITHUB_TOKEN' }),
    );
    expect(err.message).toContain('no Secret Service reachable');
    expect(readFileSync(file, 'utf8')).toBe(SERVERS);
  });

  it('never overwrites a different secret: an explicit name is refused, a derived one gets a suffix', async () => {
    const keychain = new MemoryKeychain();
    await keychain.set('taken', 'someone else');
    await keychain.set('github-github_token', 'also someone else');
    const err = await rejection(
      moveSecret({ serversFile: file, keychain, server: 'github', key: 'GITHUB_TOKEN', secretName: 'taken' }),
    );
    expect(err.message).toContain('already has a different secret named "taken"');
    expect(readFileSync(file, 'utf8')).toBe(SERVERS);

    const name = await moveSecret({ serversFile: file, keychain, server: 'github', key: 'GITHUB_TOKEN' });
    expect(name).toBe('github-github_token-2');
    expect(await keychain.get('taken')).toBe('someone else');
    expect(await keychain.get('github-github_token')).toBe('also someone else');
  });

  it('refuses an invalid secret name before touching anything', async () => {
    const keychain = new MemoryKeychain();
    const err = await rejection(
      moveSecret({
        serversFile: file,
        keychain,
        server: 'github',
        key: 'GITHUB_TOKEN',
        secretName: 'my token',
      }),
    );
    expect(err.message).toBe('"my token" is not a valid secret name');
    expect(readFileSync(file, 'utf8')).toBe(SERVERS);
  });

  it('derives readable default names', () => {
    expect(defaultSecretName('docs', 'Authorization')).toBe('docs-authorization');
    expect(defaultSecretName('my_server', 'X-Api-Key')).toBe('my_server-x-api-key');
    expect(defaultSecretName('a'.repeat(48), 'B'.repeat(40))).toHaveLength(64);
  });
});

describe('moving a secret out of args or a url', () => {
  const KEY = 'sk-ant-api03-Qx7bP2mL9vT4kR8wN3zY6cH1dF5gJ0aS';
  const PASSWORD = 'S3cr3tPassw0rd2024';
  const ARGS = `{
  "mcpServers": {
    // the README said to pass the key on the command line
    "brave": { "command": "npx", "args": ["-y", "brave-search", "--api-key", "${KEY}"] },
    "inline": { "command": "npx", "args": ["tool", "--token=${KEY}"] },
    "db": { "url": "https://admin:${PASSWORD}@db.example.com/mcp?format=json" }
  }
}
`;

  it('moves only the secret: the flag, the "--token=" and the URL around it stay in the file', async () => {
    writeFileSync(file, ARGS);
    const keychain = new MemoryKeychain();
    const brave = await moveSecret({ serversFile: file, keychain, server: 'brave', key: 'args[3]' });
    const inline = await moveSecret({ serversFile: file, keychain, server: 'inline', key: 'args[1]' });
    const db = await moveSecret({ serversFile: file, keychain, server: 'db', key: 'url' });
    // Named after the flag, not the position: what a person would recognise in `secret list`.
    expect([brave, inline, db]).toEqual(['brave-api-key', 'inline-token', 'db-url']);
    expect(await keychain.get(brave)).toBe(KEY);
    expect(await keychain.get(db)).toBe(PASSWORD);
    const text = readFileSync(file, 'utf8');
    expect(text).not.toContain(KEY);
    expect(text).not.toContain(PASSWORD);
    expect(text).toContain('// the README said to pass the key on the command line');
    expect(readServerValue(file, 'brave', ['args'])).toEqual([
      '-y',
      'brave-search',
      '--api-key',
      '${secret:brave-api-key}',
    ]);
    expect(readServerValue(file, 'inline', ['args'])).toEqual(['tool', '--token=${secret:inline-token}']);
    expect(readServerValue(file, 'db', ['url'])).toBe(
      'https://admin:${secret:db-url}@db.example.com/mcp?format=json',
    );
  });

  it('moves only the value of -e KEY=VALUE, --header "Name: Bearer …" and -p, named after what they set', async () => {
    writeFileSync(
      file,
      JSON.stringify({
        mcpServers: {
          box: {
            command: 'docker',
            args: ['run', '-e', 'GITHUB_TOKEN=abc123def', 'image'],
          },
          remote: {
            command: 'npx',
            args: ['mcp-remote', 'https://x.example/sse', '--header', 'Authorization: Bearer abc123'],
          },
          ssh: { command: 'sshpass', args: ['-p', 'S3cret!', 'ssh', 'host'] },
        },
      }),
    );
    const keychain = new MemoryKeychain();
    const box = await moveSecret({ serversFile: file, keychain, server: 'box', key: 'args[2]' });
    const remote = await moveSecret({ serversFile: file, keychain, server: 'remote', key: 'args[3]' });
    const ssh = await moveSecret({ serversFile: file, keychain, server: 'ssh', key: 'args[1]' });
    expect([box, remote, ssh]).toEqual(['box-github_token', 'remote-authorization', 'ssh-password']);
    expect(await keychain.get(box)).toBe('abc123def');
    expect(await keychain.get(remote)).toBe('abc123');
    expect(await keychain.get(ssh)).toBe('S3cret!');
    expect(readServerValue(file, 'box', ['args'])).toEqual([
      'run',
      '-e',
      'GITHUB_TOKEN=${secret:box-github_token}',
      'image',
    ]);
    expect(readServerValue(file, 'remote', ['args', 3])).toBe(
      'Authorization: Bearer ${secret:remote-authorization}',
    );
    expect(readServerValue(file, 'ssh', ['args'])).toEqual(['-p', '${secret:ssh-password}', 'ssh', 'host']);
  });

  it('moves the literal part of a value that also holds a reference (no dead end)', async () => {
    writeFileSync(
      file,
      '{ "mcpServers": { "mix": { "command": "x", "env": { "API_KEY": "${env:USER}:s3cr3tLiteralValue" } } } }',
    );
    const keychain = new MemoryKeychain();
    const name = await moveSecret({ serversFile: file, keychain, server: 'mix', key: 'API_KEY' });
    expect(await keychain.get(name)).toBe('s3cr3tLiteralValue');
    expect(readServerValue(file, 'mix', ['env', 'API_KEY'])).toBe('${env:USER}:${secret:mix-api_key}');
  });

  it('says what exists when the place named is wrong', async () => {
    writeFileSync(file, ARGS);
    const keychain = new MemoryKeychain();
    expect(
      (await rejection(moveSecret({ serversFile: file, keychain, server: 'brave', key: 'args[9]' }))).hint,
    ).toBe('its args are args[0] to args[3]');
    expect(
      (await rejection(moveSecret({ serversFile: file, keychain, server: 'brave', key: 'url' }))).message,
    ).toBe('server "brave" has no url');
  });
});
