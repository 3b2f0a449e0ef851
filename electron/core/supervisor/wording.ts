import { describeError } from '../errors.ts';

/** describeError plus the chain of causes ("fetch failed: connect ECONNREFUSED 127.0.0.1:9"). */
export function explain(err: unknown): string {
  let text = describeError(err);
  let cause = err instanceof Error ? err.cause : undefined;
  for (let depth = 0; depth < 3 && cause instanceof Error; depth++) {
    if (cause.message && !text.includes(cause.message)) text += `: ${cause.message}`;
    cause = cause.cause;
  }
  return text;
}

/** A message's first line, at most 300 characters: an error may carry a whole (HTML) page. */
export function firstLine(text: string): string {
  const html = text.search(/<!DOCTYPE|<html/i);
  const line = (html === -1 ? text : `${text.slice(0, html)}(an HTML page)`).split('\n', 1)[0] ?? '';
  return line.length > 300 ? `${line.slice(0, 300)}…` : line;
}

/** POSIX-shell quoting, for showing a command line to people (never executed). */
export function quote(word: string): string {
  if (word !== '' && /^[A-Za-z0-9_@%+=:,./-]+$/.test(word)) return word;
  return `'${word.replaceAll("'", `'\\''`)}'`;
}

/** 60000 → "60 s", 300000 → "5 min", 1500 → "1.5 s", 250 → "250 ms" */
export function formatDuration(ms: number): string {
  if (ms >= 120_000 && ms % 60_000 === 0) return `${ms / 60_000} min`;
  if (ms >= 1_000) return `${Number((ms / 1_000).toFixed(1))} s`;
  return `${ms} ms`;
}
