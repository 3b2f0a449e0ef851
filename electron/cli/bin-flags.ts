import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The `switchboard` command's entry: electron/cli/bin.mjs. */
export const BIN_PATH = join(import.meta.dirname, 'bin.mjs');

/**
 * The Node flags in bin.mjs's shebang (`#!/usr/bin/env -S node --max-semi-space-size=2 …`): what
 * `npx switchboard …` runs with, so what runs bin.mjs another way (the launcher on PATH, the benches)
 * passes the same ones. One place says them: the shebang.
 */
export function binFlags(bin = BIN_PATH): string[] {
  const first = readFileSync(bin, 'utf8').split('\n')[0] ?? '';
  return (/^#!.*?\bnode\b(.*)$/.exec(first)?.[1] ?? '').trim().split(/\s+/).filter(Boolean);
}
