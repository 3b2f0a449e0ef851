import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { checkSizes, LIMITS } from '../../../build/architecture/sizes.ts';

/**
 * The size rules of build/architecture/sizes.ts against a small tree laid out like the repository:
 * a file, a class and a composition root each past its limit, and a listed file past its ceiling,
 * must each be reported; files within their limits must not. (`npm test` runs the rules over the
 * real tree; this shows they can fail.)
 */
const lines = (n: number, line = 'export const x = 1;') =>
  Array.from({ length: n }, () => line).join('\n') + '\n';
const classOf = (name: string, body: number) => `export class ${name} {\n${lines(body, '  a = 1;')}}\n`;

const tree: Record<string, string> = {
  'electron/core/small.ts': lines(LIMITS.file),
  'electron/core/big.ts': lines(LIMITS.file + 1),
  'shared/big-class.ts': classOf('Big', LIMITS.class), // the class line and its brace make it 2 more
  'electron/core/fine-class.ts': classOf('Fine', LIMITS.class - 2),
  'electron/core/root.ts': lines(LIMITS.compositionRoot + 1),
  'electron/core/old.ts': lines(LIMITS.file + 60),
  'electron/core/older.ts': lines(LIMITS.file + 40),
};

const repo = mkdtempSync(join(tmpdir(), 'sb-sizes-'));
for (const [path, text] of Object.entries(tree)) {
  mkdirSync(dirname(join(repo, path)), { recursive: true });
  writeFileSync(join(repo, path), text);
}
afterAll(() => rmSync(repo, { recursive: true, force: true }));

describe('size rules', () => {
  const found = checkSizes(repo, {
    limits: LIMITS,
    roots: ['electron/core/root.ts'],
    ceilings: { 'electron/core/old.ts': LIMITS.file + 50, 'electron/core/older.ts': LIMITS.file + 50 },
  });
  const places = found.map((f) => f.place).sort();

  it('reports each file, class and composition root past its limit, and a file past its ceiling', () => {
    expect(places).toEqual([
      'electron/core/big.ts',
      'electron/core/old.ts',
      'electron/core/root.ts',
      'shared/big-class.ts#Big',
    ]);
    expect(found.find((f) => f.place === 'electron/core/root.ts')?.limit).toBe(LIMITS.compositionRoot);
    expect(found.find((f) => f.place === 'shared/big-class.ts#Big')?.lines).toBe(LIMITS.class + 2);
  });
});
