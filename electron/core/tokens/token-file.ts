import { randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomic } from '../fs/atomic-write.ts';

/** Token names are file names under tokens/: the control API's, and later one per editor. */
export const CONTROL_TOKEN = 'control';

/** Reads tokens/<name>, creating it (mode 0600, 256 random bits) the first time. */
export function ensureToken(tokensDir: string, name: string): string {
  const existing = readToken(tokensDir, name);
  if (existing) return existing;
  mkdirSync(tokensDir, { recursive: true, mode: 0o700 });
  const token = randomBytes(32).toString('base64url');
  writeFileAtomic(join(tokensDir, name), token + '\n', { mode: 0o600 });
  chmodSync(join(tokensDir, name), 0o600);
  return token;
}

export function readToken(tokensDir: string, name: string): string | undefined {
  try {
    return readFileSync(join(tokensDir, name), 'utf8').trim() || undefined;
  } catch {
    return undefined;
  }
}
