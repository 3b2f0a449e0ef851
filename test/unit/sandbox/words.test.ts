import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { sandboxPolicy, type PolicyInput } from '../../../electron/core/sandbox/policy.ts';
import { describeAccess } from '../../../electron/core/sandbox/words.ts';
import { LINUX_SUPPORT } from '../../helpers/sandbox.ts';

let dir: string;
let home: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'sb-words-'));
  home = join(dir, 'home');
  mkdirSync(join(home, 'docs'), { recursive: true });
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function words(over: Partial<PolicyInput>): string[] {
  return describeAccess(
    sandboxPolicy({
      name: 'x',
      setting: undefined,
      command: '/usr/bin/node',
      args: [],
      env: {},
      cwd: undefined,
      ownFolder: join(home, '.config/switchboard/data/x'),
      switchboardHome: join(home, '.config/switchboard'),
      userHome: home,
      support: LINUX_SUPPORT,
      ...over,
    }),
  );
}

describe("the approval's words for the home folder", () => {
  it('say the home is read when an argument names it, and not also that only toolchains are', () => {
    const lines = words({ args: [home] });
    const reads = lines.find((l) => l.startsWith('reads:')) ?? '';
    expect(reads).toBe('reads: the system (read-only), ~ (given in its arguments)');
    expect(lines.join('\n')).not.toMatch(/only (?:for )?language toolchains/);
    expect(lines).toContainEqual(
      expect.stringMatching(
        /^cannot see, even in your home folder: .*your editors' settings files and Switchboard's tokens/,
      ),
    );
  });

  it('say the same for a servers.json grant of the home, read or write', () => {
    for (const setting of [{ read: ['~'] }, { write: ['~'] }]) {
      const lines = words({ setting });
      expect(lines.join('\n'), JSON.stringify(setting)).not.toMatch(/only (?:for )?language toolchains/);
    }
  });

  it('say that only toolchains are read when the home is not granted, and the rest when part of it is', () => {
    expect(words({})).toContain(
      'reads: the system (read-only); of your home folder only language toolchains (~/.nvm, ~/.npm/_npx, ~/.local/share/uv, …)',
    );
    expect(words({ setting: { read: ['~/docs'] } })).toContain(
      'reads: the system (read-only), ~/docs; of the rest of your home folder only language toolchains (~/.nvm, ~/.npm/_npx, ~/.local/share/uv, …)',
    );
  });
});
