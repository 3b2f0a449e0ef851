import { chmodSync, mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { realCommand, resolveCommand } from '../../../electron/core/trust/resolve-command.ts';

const dir = mkdtempSync(join(tmpdir(), 'sb-resolve-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function executable(path: string, mode = 0o755): string {
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, '#!/bin/sh\n');
  chmodSync(path, mode);
  return path;
}

describe('resolveCommand', () => {
  const first = executable(join(dir, 'a', 'tool'));
  executable(join(dir, 'b', 'tool'));
  executable(join(dir, 'a', 'noexec'), 0o644);
  const local = executable(join(dir, 'proj', 'bin', 'server'));

  it('finds the first match on PATH, as the OS would', () => {
    const path = [join(dir, 'a'), join(dir, 'b')].join(':');
    expect(resolveCommand('tool', { path, cwd: dir, platform: 'linux' })).toBe(first);
  });

  it('skips files that are not executable and reports a missing command as undefined', () => {
    expect(resolveCommand('noexec', { path: join(dir, 'a'), cwd: dir, platform: 'linux' })).toBeUndefined();
    expect(resolveCommand('nope', { path: join(dir, 'a'), cwd: dir, platform: 'linux' })).toBeUndefined();
  });

  it('resolves a relative path against the server cwd', () => {
    expect(resolveCommand('./bin/server', { path: '', cwd: join(dir, 'proj'), platform: 'linux' })).toBe(
      local,
    );
  });

  it('finds the real file behind symlinks (the link itself is what gets spawned)', () => {
    const target = executable(join(dir, 'real', 'server-1.2.3'));
    mkdirSync(join(dir, 'links'), { recursive: true });
    symlinkSync(target, join(dir, 'links', 'server'));
    const found = resolveCommand('server', { path: join(dir, 'links'), cwd: dir, platform: 'linux' });
    expect(found).toBe(join(dir, 'links', 'server'));
    expect(realCommand(join(dir, 'links', 'server'))).toBe(realpathSync(target));
    expect(realCommand(first)).toBe(realpathSync(first));
  });
});
