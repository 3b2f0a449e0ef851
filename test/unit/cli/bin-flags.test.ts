import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { binFlags } from '../../../electron/cli/bin-flags.ts';

const pkg = JSON.parse(readFileSync(join(import.meta.dirname, '../../../package.json'), 'utf8')) as {
  scripts: Record<string, string>;
};

describe("serve's Node flags", () => {
  it('bin.mjs names the memory flags serve is measured with', () => {
    expect(binFlags()).toEqual(
      expect.arrayContaining(['--max-semi-space-size=2', '--expose-gc', '--v8-pool-size=1', '--max-opt=2']),
    );
  });

  it.each(['start', 'serve'])('`npm run %s` runs Node with the same flags as `npx switchboard`', (script) => {
    const words = (pkg.scripts[script] ?? '').split(/\s+/);
    expect(words[0]).toBe('node');
    expect(words.filter((w) => w.startsWith('--'))).toEqual(binFlags());
  });
});
