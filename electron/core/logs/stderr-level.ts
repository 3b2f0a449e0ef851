import type { LogLine } from '../../../shared/logs.ts';

/**
 * The level a server's own stderr line announces, so "warnings and errors" shows them. Servers write
 * everything to stderr (stdout is the protocol), so the stream says nothing; the line's own marker
 * does: a structured field (`"level":"warn"`, `level=error`), a bracketed level (`[error]`), a level
 * word among the first few words written in capitals (`2026-… ERROR …`, `npm WARN …`) or leading the
 * line as `error: …`, an exception (`TypeError: …`) or a stack frame. A sentence that merely mentions
 * an error ("no error found") stays info.
 */
export function stderrLevel(text: string): LogLine['level'] {
  const field = /"level"\s*:\s*"(\w+)"|\blevel=("?)(\w+)\2/i.exec(text);
  const named = field ? levelOf(field[1] ?? field[3] ?? '') : undefined;
  if (named) return named;
  const bracketed = /\[\s*([A-Za-z]+)\s*\]/.exec(text.slice(0, 60));
  const inBrackets = bracketed ? levelOf(bracketed[1] ?? '') : undefined;
  if (inBrackets) return inBrackets;
  const words = text.trim().split(/\s+/).slice(0, 4);
  for (const [i, raw] of words.entries()) {
    const word = raw.replace(/[:!,]+$/, '');
    const marks = word === word.toUpperCase() || (i === 0 && raw.endsWith(':'));
    const level = marks ? levelOf(word) : undefined;
    if (level) return level;
  }
  if (/^\s*[A-Z]\w*Error: /.test(text) || /^\s+at .+:\d+:\d+\)?$/.test(text)) return 'error';
  return 'info';
}

function levelOf(word: string): LogLine['level'] | undefined {
  const w = word.toLowerCase();
  if (['error', 'err', 'fatal', 'panic', 'critical', 'crit', 'emerg', 'alert'].includes(w)) return 'error';
  if (w === 'warn' || w === 'warning') return 'warn';
  return undefined;
}
