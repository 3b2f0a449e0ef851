import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { uiBuildReason } from '../../../electron/headless/ui-build.ts';

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'sb-ui-build-'));
  mkdirSync(join(root, 'renderer', 'src', 'views'), { recursive: true });
  writeFileSync(join(root, 'renderer', 'src', 'views', 'ServersView.tsx'), 'export {};');
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe('whether the UI needs building before serve', () => {
  it('builds a fresh checkout, skips an up-to-date build, and rebuilds after a source edit', () => {
    expect(uiBuildReason(root)).toBe('not built yet');
    mkdirSync(join(root, 'renderer', 'dist'));
    writeFileSync(join(root, 'renderer', 'dist', 'index.html'), '<!doctype html>');
    const past = new Date(Date.now() - 60_000);
    utimesSync(join(root, 'renderer', 'src', 'views', 'ServersView.tsx'), past, past);
    expect(uiBuildReason(root)).toBeUndefined();
    writeFileSync(join(root, 'renderer', 'src', 'views', 'ServersView.tsx'), 'export const x = 1;');
    expect(uiBuildReason(root)).toBe(join('renderer', 'src', 'views', 'ServersView.tsx') + ' changed');
    // The checkout's root as serve finds it ends with a separator: the message names the file whole.
    expect(uiBuildReason(root + '/')).toBe(join('renderer', 'src', 'views', 'ServersView.tsx') + ' changed');
  });
});
