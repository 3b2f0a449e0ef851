import { existsSync } from 'node:fs';
import { posix } from 'node:path';
import { canRead } from './access.ts';
import type { SandboxPolicy } from './policy.ts';
import { findRefusal, refusedPath, type Refusal } from './refusals.ts';

type Sandboxed = Extract<SandboxPolicy, { sandboxed: true }>;

/** How much of an answer's text is read, and how many of its lines and arguments at most. */
export const ANSWER_SCAN_CHARS = 16_384;
const MAX_LINES = 200;
/** Failure lines read against the policy (~25 µs each): a long error dump costs at most ~0.5 ms. */
const MAX_FAILURE_LINES = 20;
const MAX_ARGUMENTS = 32;

/** A path-like word: "/x", "~/x", in quotes or after a space, colon or equals sign. */
const PATH_WORD = /(?:^|[\s'"`(=:])(?:~\/|\/)[^\s/]/m;
/** An answer that says something could not be found or used (servers' own words, not only errno). */
const FAILED =
  /ENOENT|EACCES|EPERM|EROFS|no such file|permission denied|read-only file system|not permitted|does not exist|not found|cannot access/i;

/**
 * What a tool's answer shows the sandbox refused: a line of it that names a path the policy hides or
 * keeps read-only (`ENOENT … mkdir '~/.cache/ms-playwright'`), or, for a failed answer that names no
 * path ("Working directory does not exist"), a path it was called with that exists but is hidden.
 * Cheap on the way back to the editor: it reads only text with a path-like word or a failure in it.
 */
export function refusalInAnswer(
  text: string,
  args: unknown,
  failed: boolean,
  policy: Sandboxed,
  exists: (path: string) => boolean = existsSync,
): Refusal | undefined {
  const bounded = text.length > ANSWER_SCAN_CHARS ? text.slice(0, ANSWER_SCAN_CHARS) : text;
  const saysFailed = FAILED.test(bounded);
  if (PATH_WORD.test(bounded) && saysFailed) {
    const read = new Set<string>();
    for (const line of bounded.split('\n', MAX_LINES)) {
      if (read.size >= MAX_FAILURE_LINES) break;
      if (read.has(line) || !FAILED.test(line)) continue;
      read.add(line);
      const found = findRefusal(line, policy, exists);
      if (found?.kind === 'file') return found;
    }
  }
  if (!failed && !saysFailed) return undefined;
  for (const path of pathArguments(args, policy.userHome)) {
    if (exists(path) && !canRead(path, policy)) return refusedPath('reading', path, policy);
  }
  return undefined;
}

/** The absolute (or ~/) paths among a call's string arguments, one level of nesting deep. */
function pathArguments(args: unknown, home: string | undefined): string[] {
  const out: string[] = [];
  const visit = (value: unknown, depth: number) => {
    if (out.length >= MAX_ARGUMENTS) return;
    if (typeof value === 'string') {
      if (value.startsWith('/')) out.push(posix.normalize(value));
      else if (value.startsWith('~/') && home) out.push(posix.join(home, value.slice(2)));
    } else if (depth < 2 && value && typeof value === 'object')
      for (const v of Object.values(value).slice(0, MAX_ARGUMENTS)) visit(v, depth + 1);
  };
  visit(args, 0);
  return out;
}
