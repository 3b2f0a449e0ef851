/**
 * Text from a config (a command, an argument, an env name or value, a cwd, a URL, a header) or from
 * a server (its log lines) shown to a person, on a terminal or in the UI, with every character that
 * could hide or fake part of it written out visibly: C0/C1 controls (ESC sequences, carriage return),
 * line breaks (also U+2028/U+2029), bidi controls (U+202E turns `x\u{202E}exe.txt` into `xtxt.exe`),
 * zero-width and other invisible characters, spaces other than the plain space (U+00A0 reads as an
 * argument break), private-use characters and lone surrogates.
 *
 * Each such character becomes `\u{HEX}` (uppercase, at least two digits): `\u{1B}`, `\u{0A}`,
 * `\u{202E}`. A backslash in the input is written as is, except where it could be taken for part of
 * an escape: every backslash in a run that ends right before `u{` or before an escaped character is
 * doubled. So the output reads back unambiguously: a run of N backslashes before `u{` stands for N/2
 * backslashes and the text `u{` when N is even, and for (N-1)/2 backslashes and one escaped character
 * when N is odd; any other backslash is itself. Paths (`C:\Users\…`) and JSON (`\"`) read the same.
 *
 * Apply it exactly once, where the text for a person is made: it is not idempotent (by design, since a
 * literal `\u{202E}` in the input must not read like an escaped U+202E).
 */
export function displayText(text: string): string {
  if (!NEEDS_WORK.test(text)) return text;
  return text.replace(TOKEN, (_match: string, slashes: string, what: string) => {
    // Backslashes right before "u{" or before an escape are doubled: they can neither start an
    // escape nor be read as part of the one that follows.
    const doubled = slashes + slashes;
    return what === 'u{' ? `${doubled}u{` : doubled + escapeCodePoint(what.codePointAt(0) ?? 0);
  });
}

/**
 * Text that is meant to have lines (a diff, a file): split at its line breaks (LF or CRLF), each line
 * made display-safe. Any other line break inside a line (a lone CR, U+2028) is escaped like the rest.
 * Tabs stay tabs: in such text they are indentation, as in the file itself (a terminal and a <pre>
 * show them as space), and `\u{09}` at the start of every line of a tab-indented file reads as noise.
 */
export function displayLines(text: string): string[] {
  return text.split(/\r?\n/).map((line) => line.split('\t').map(displayText).join('\t'));
}

/**
 * A message for a person that may quote config values or a server's words (an error): its lines kept;
 * if it has any character displayText would escape, every line is escaped. A message without one is
 * left exactly as it is, so parts already made display-safe (a quoted approval line) are not escaped
 * twice. For the places that print errors whatever made them: the CLI, the UI, notifications.
 */
export function displayMessage(text: string): string {
  return hasHiddenCharacters(text.replace(/\r?\n/g, '')) ? displayLines(text).join('\n') : text;
}

/** True when `displayText` would escape a character of `text` (not counting backslash doubling). */
export function hasHiddenCharacters(text: string): boolean {
  return HIDDEN.test(text);
}

function escapeCodePoint(code: number): string {
  return `\\u{${code.toString(16).toUpperCase().padStart(2, '0')}}`;
}

/**
 * Controls (Cc: C0, DEL, C1 incl. U+0085 NEL), format characters (Cf: bidi controls and marks,
 * zero-width space/joiners, soft hyphen, BOM, tags, interlinear annotation), line and paragraph
 * separators, lone surrogates, private use, everything Unicode says to render invisibly
 * (Default_Ignorable_Code_Point: variation selectors, Hangul fillers, …), and the spaces that are not
 * U+0020 (they read as argument breaks), plus U+2800 (braille blank, drawn as nothing).
 */
const HIDDEN_CLASS =
  '\\p{Cc}\\p{Cf}\\p{Zl}\\p{Zp}\\p{Cs}\\p{Co}\\p{Default_Ignorable_Code_Point}' +
  '\\u00A0\\u1680\\u2000-\\u200A\\u202F\\u205F\\u3000\\u2800';
const HIDDEN = new RegExp(`[${HIDDEN_CLASS}]`, 'u');
const NEEDS_WORK = new RegExp(`[${HIDDEN_CLASS}]|\\\\u\\{`, 'u');
const TOKEN = new RegExp(`(\\\\*)(u\\{|[${HIDDEN_CLASS}])`, 'gu');

/**
 * The same characters except tab and newline, for a text editor that marks them itself (CodeMirror's
 * highlightSpecialChars), where tabs and line breaks are layout.
 */
export const HIDDEN_CHARACTER_IN_EDITOR = new RegExp(`(?![\\t\\n])[${HIDDEN_CLASS}]`, 'u');

/** At most `max` characters (code points), with an ellipsis when cut. */
export function clip(text: string, max: number): string {
  const chars = [...text];
  return chars.length <= max ? text : `${chars.slice(0, max - 1).join('')}…`;
}
