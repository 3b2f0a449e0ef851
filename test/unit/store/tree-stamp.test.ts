import { chmodSync, mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync, cpSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { checkTree, stampTree } from '../../../electron/core/store/tree-stamp.ts';

let dir: string;
let root: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'sb-stamp-'));
  root = join(dir, 'install');
  mkdirSync(join(root, 'node_modules', 'dep'), { recursive: true });
  writeFileSync(join(root, 'node_modules', 'dep', 'index.js'), 'exports.a = 1;\n');
  writeFileSync(join(root, 'package.json'), '{}');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('an install’s stamp', () => {
  it('accepts the install as it was, and a copy with the same content (re-stamped)', () => {
    const stamp = stampTree(root);
    expect(checkTree(root, stamp)).toEqual({ ok: true });
    const copy = join(dir, 'copy');
    cpSync(root, copy, { recursive: true });
    const check = checkTree(copy, stamp);
    expect(check.ok).toBe(true);
    expect(check.ok && check.restamped?.content).toBe(stamp.content);
  });

  it('catches a changed file even with its size and time put back, an added file, a removed one, a chmod', () => {
    const file = join(root, 'node_modules', 'dep', 'index.js');
    const stamp = stampTree(root);
    writeFileSync(file, 'exports.a = 2;\n');
    utimesSync(file, new Date(0), new Date(0));
    expect(checkTree(root, stamp)).toMatchObject({
      ok: false,
      changed: expect.stringContaining('node_modules/dep/index.js'),
    });

    const fresh = stampTree(root);
    writeFileSync(join(root, 'node_modules', 'dep', 'extra.js'), '');
    expect(checkTree(root, fresh)).toEqual({ ok: false, changed: 'node_modules/dep/extra.js was added' });
    rmSync(join(root, 'node_modules', 'dep', 'extra.js'));
    rmSync(join(root, 'package.json'));
    expect(checkTree(root, fresh)).toEqual({ ok: false, changed: 'package.json was removed' });

    writeFileSync(join(root, 'package.json'), '{}');
    const again = stampTree(root);
    chmodSync(file, 0o755);
    expect(checkTree(root, again).ok).toBe(false);
  });
});
