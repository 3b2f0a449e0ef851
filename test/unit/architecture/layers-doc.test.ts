import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { DEVELOPMENT_MD, withLayers } from '../../../build/architecture/layers.ts';

describe('docs/development.md', () => {
  it('shows the layers the import check enforces (npm run docs:layers rewrites them)', () => {
    const doc = readFileSync(DEVELOPMENT_MD, 'utf8');
    expect(doc).toBe(withLayers(doc));
  });
});
