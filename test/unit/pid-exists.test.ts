import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { pidExists } from '../../electron/core/pid-exists.ts';

// One check of "is this pid a live process" for serve.json, editor-file locks and the parent watch.

describe('pidExists', () => {
  it('is true for a running process and false once it has exited', () => {
    expect(pidExists(process.pid)).toBe(true);
    const child = spawnSync(process.execPath, ['-e', '0']);
    expect(child.status).toBe(0);
    expect(pidExists(child.pid)).toBe(false);
  });

  it('is false for 0 and negative numbers, which name process groups rather than a process', () => {
    expect(pidExists(0)).toBe(false);
    expect(pidExists(-1)).toBe(false);
    expect(pidExists(-process.pid)).toBe(false);
    expect(pidExists(1.5)).toBe(false);
  });
});
