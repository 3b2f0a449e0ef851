import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { prepareLaunch } from '../../electron/core/launch-plan.ts';
import { MemoryKeychain } from '../../electron/core/secrets/keychain.ts';
import { serverEntry } from '../../electron/core/server-entry.ts';
import { ServerConfigSchema } from '../../shared/schema/servers.ts';

const home = mkdtempSync(join(tmpdir(), 'sb-launch-'));
afterAll(() => rmSync(home, { recursive: true, force: true }));

const deps = (keychain: MemoryKeychain) => ({
  keychain,
  env: { PATH: '/usr/bin:/bin', USER: 'ada' },
  commandPath: '/usr/bin:/bin',
  platform: 'linux' as const,
  home,
  data: join(home, 'data'),
});

function entry(name: string, config: unknown) {
  return serverEntry(name, ServerConfigSchema.parse(config), () => ({
    path: '/usr/bin:/bin',
    pathExt: undefined,
    cwd: '/tmp',
    platform: 'linux',
  }));
}

describe('prepareLaunch', () => {
  it('resolves references in args at spawn time, and lists their values for redaction', async () => {
    const keychain = new MemoryKeychain();
    await keychain.set('brave', 'BSA-key-value-123');
    const e = entry('brave', {
      command: 'sh',
      args: ['-c', 'x', '--api-key', '${secret:brave}', '--user=${env:USER}'],
    });
    // The approval is bound to the references, never to the values.
    expect(JSON.stringify(e.launch)).not.toContain('BSA-key-value-123');
    const plan = await prepareLaunch(e, deps(keychain));
    expect(plan).toMatchObject({
      transport: 'stdio',
      args: ['-c', 'x', '--api-key', 'BSA-key-value-123', '--user=ada'],
      redact: ['BSA-key-value-123'],
    });
  });

  it('resolves references in a remote url, and says which place needs a missing secret', async () => {
    const keychain = new MemoryKeychain();
    await keychain.set('db', 'pw-42');
    const plan = await prepareLaunch(
      entry('db', { url: 'https://admin:${secret:db}@db.example.com/mcp' }),
      deps(keychain),
    );
    expect(plan).toMatchObject({
      transport: 'http',
      url: 'https://admin:pw-42@db.example.com/mcp',
      redact: ['pw-42'],
    });

    const missing = entry('brave', { command: 'sh', args: ['--api-key', '${secret:nope}'] });
    await expect(prepareLaunch(missing, deps(keychain))).rejects.toThrow(
      'server "brave": args[1] uses ${secret:nope}, but the keychain has no secret named "nope"',
    );
  });

  it('refuses a literal secret in args with the exact fix', () => {
    const e = entry('brave', {
      command: 'sh',
      args: ['--api-key', 'sk-ant-api03-Qx7bP2mL9vT4kR8wN3zY6cH1dF5gJ0aS'],
    });
    expect(e.refusal).toContain('args[1] holds a literal secret');
    expect(e.refusal).toContain('switchboard secret move brave args[1]');
    expect(e.refusal).not.toContain('Qx7bP2');
  });
});
