import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { describeAccess } from '../../../electron/core/sandbox/words.ts';
import type { SandboxSetting } from '../../../shared/schema/servers.ts';
import { runInSandbox } from '../../helpers/real-sandbox.ts';
import { sandboxUnavailable } from '../../helpers/sandbox.ts';
import { tempHome, type TempHome } from '../../helpers/temp-home.ts';

// Issue 32 item 5: under `serve` as root, a sandboxed server must not be root: with every capability
// dropped, root still owns /etc/shadow. Real bubblewrap as root (CI's case), a shell standing in for a
// server: who it is, what it reads, where it writes.
const root = process.getuid?.() === 0;
const skip = sandboxUnavailable() !== undefined || !root;
if (!root) console.log('run-as-root test skipped: not root');

let t: TempHome | undefined;
afterEach(() => {
  t?.cleanup();
  t = undefined;
});

async function inSandbox(script: string, setting?: SandboxSetting) {
  t = tempHome();
  const { out, err, own, policy } = await runInSandbox(t, {
    command: '/bin/sh',
    args: ['-c', script],
    setting: { network: 'none', ...setting },
    tempRoot: t.dir,
    // what an earlier version left in its own folder, written as root
    prepareOwn: (folder) => {
      mkdirSync(join(folder, 'old'), { recursive: true });
      writeFileSync(join(folder, 'old', 'memory.jsonl'), '{}\n');
    },
  });
  return { out, err, own, words: describeAccess(policy) };
}

describe.skipIf(skip)('a sandboxed server under serve as root', () => {
  it('runs as nobody: /etc/shadow is unreadable, its own folder (old files too) and /tmp are writable', async () => {
    const { out, err, own, words } = await inSandbox(
      'id -u; cat /etc/shadow >/dev/null 2>&1 && echo shadow-read || echo shadow-refused; echo new > new.txt && echo more >> old/memory.jsonl && echo own-ok; echo x > /tmp/x && echo tmp-ok',
    );
    expect(out.split('\n'), err).toEqual(['65534', 'shadow-refused', 'own-ok', 'tmp-ok', '']);
    expect(readFileSync(join(own, 'new.txt'), 'utf8')).toBe('new\n');
    expect(statSync(join(own, 'new.txt')).uid).toBe(65534);
    expect(words).toContain('runs as the user nobody, not as root (Switchboard runs as root)');
  });

  it('stays root, and says so on the approval, when it writes a folder of root’s', async () => {
    const { out, words } = await inSandbox('id -u', { write: ['/srv/switchboard-test-none'] });
    expect(out).toBe('0\n');
    expect(words).toContainEqual(expect.stringMatching(/^runs as root, because Switchboard does/));
  });

  it('can use a repository of root’s that it was granted: git does not refuse it as another user’s', async () => {
    const repo = mkdtempSync(join(tmpdir(), 'sb-root-repo-'));
    try {
      chmodSync(repo, 0o755);
      const git = (...args: string[]) =>
        spawnSync('git', ['-C', repo, ...args], { encoding: 'utf8', env: { ...process.env, HOME: repo } });
      git('init', '-q');
      writeFileSync(join(repo, 'notes.md'), 'hi\n');
      const { out, err } = await inSandbox(`git -C '${repo}' status --porcelain && echo git-ok`, {
        read: [repo],
      });
      expect(out, err).toBe('?? notes.md\ngit-ok\n');
    } finally {
      rmSync(repo, { recursive: true, force: true });
    }
  });
});
