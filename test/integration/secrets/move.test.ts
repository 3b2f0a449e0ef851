import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OsKeychain } from '../../../electron/core/secrets/keychain.ts';
import { moveSecret } from '../../../electron/core/config/move-secret.ts';

const inTestSession = process.env.SWITCHBOARD_IN_TEST_SESSION === '1';
const keychain = new OsKeychain();
let dir: string;
let secretName: string | undefined;

beforeAll(() => {
  if (!inTestSession)
    throw new Error('keychain tests need the private keyring session: run them with bash test/run.sh');
  dir = mkdtempSync(join(tmpdir(), 'switchboard-move-it-'));
});

afterAll(async () => {
  if (secretName) await keychain.delete(secretName);
  if (dir) rmSync(dir, { recursive: true, force: true });
});

function filesUnder(root: string): string[] {
  return readdirSync(root, { withFileTypes: true }).flatMap((entry) => {
    const path = join(root, entry.name);
    return entry.isDirectory() ? filesUnder(path) : [path];
  });
}

describe('moving a literal GITHUB_TOKEN into the real keychain', () => {
  it('leaves the value only in the keychain and a reference in servers.json, comments intact', async () => {
    const canary = `ghp_${randomBytes(18).toString('hex')}`;
    const home = join(dir, 'home');
    mkdirSync(home);
    const file = join(home, 'servers.json');
    const text = [
      '{',
      '  // GitHub for work',
      '  "mcpServers": {',
      '    "github": {',
      '      "command": "npx",',
      '      "args": ["-y", "@modelcontextprotocol/server-github"],',
      '      "env": {',
      `        "GITHUB_TOKEN": "${canary}", // expires in June`,
      '      },',
      '    },',
      '  },',
      '}',
      '',
    ].join('\n');
    writeFileSync(file, text);

    secretName = `sbtest-${randomBytes(4).toString('hex')}-github`;
    const stored = await moveSecret({
      serversFile: file,
      keychain,
      server: 'github',
      key: 'GITHUB_TOKEN',
      secretName,
    });
    expect(stored).toBe(secretName);

    expect(await keychain.get(secretName)).toBe(canary);
    expect(await keychain.list()).toContain(secretName);
    expect(readFileSync(file, 'utf8')).toBe(text.replace(canary, `\${secret:${secretName}}`));
    for (const path of filesUnder(dir)) expect(readFileSync(path, 'utf8'), path).not.toContain(canary);
    expect(filesUnder(dir)).toEqual([file]);
  });
});
