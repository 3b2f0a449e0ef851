import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { displayLines, displayMessage, displayText, hasHiddenCharacters } from '../../shared/display-text.ts';

/**
 * Reads displayText's output back (the rule its comment gives): a run of N backslashes before "u{"
 * is N/2 backslashes and the text "u{" when N is even, else (N-1)/2 backslashes and one escaped
 * character; any other backslash is itself. If this inverts every output, no two inputs look alike.
 */
function readBack(shown: string): string {
  return shown.replace(/(\\+)u\{([0-9A-F]*)\}?/g, (match: string, slashes: string, hex: string) => {
    const half = '\\'.repeat(Math.floor(slashes.length / 2));
    if (slashes.length % 2 === 0) return `${half}${match.slice(slashes.length)}`;
    return half + String.fromCodePoint(parseInt(hex, 16));
  });
}

describe('displayText', () => {
  it('writes out what would spoof a command line: bidi, ESC sequences, line breaks, invisibles', () => {
    expect(displayText('x\u202Eexe.txt')).toBe('x\\u{202E}exe.txt');
    expect(displayText('\u001b[2K\rclean')).toBe('\\u{1B}[2K\\u{0D}clean');
    expect(displayText('a\nb\u2028c\u2029d\u0085e')).toBe('a\\u{0A}b\\u{2028}c\\u{2029}d\\u{85}e');
    expect(displayText('one\u00A0arg')).toBe('one\\u{A0}arg');
    expect(displayText('zero\u200Bwidth\u200D\uFEFF\u2066\u2069\u061C')).toBe(
      'zero\\u{200B}width\\u{200D}\\u{FEFF}\\u{2066}\\u{2069}\\u{61C}',
    );
    expect(displayText('soft\u00ADhyphen\u034F\u3164\uFE0F\u{E0041}')).toBe(
      'soft\\u{AD}hyphen\\u{34F}\\u{3164}\\u{FE0F}\\u{E0041}',
    );
    expect(displayText('\u0000\u007F\u009B\tend')).toBe('\\u{00}\\u{7F}\\u{9B}\\u{09}end');
    expect(displayText('lone \uD800 surrogate')).toBe('lone \\u{D800} surrogate');
  });

  it('leaves ordinary text alone: other scripts, accents, emoji, paths, JSON escapes', () => {
    for (const text of [
      'npx -y @modelcontextprotocol/server-github',
      'C:\\Users\\you\\server.exe',
      '\\\\server\\share',
      '{"a": "\\"quoted\\" \\n"}',
      'café 日本語 עברית العربية',
      'e\u0301', // a combining accent is part of the letter
      'thumbs 👍🏽',
    ])
      expect(displayText(text)).toBe(text);
  });

  it('cannot be faked with a literal backslash: a typed \\u{202E} reads differently from U+202E', () => {
    expect(displayText('\\u{202E}')).toBe('\\\\u{202E}');
    expect(displayText('\u202E')).toBe('\\u{202E}');
    // a literal backslash right before a hidden character is doubled too: \\ then the escape
    expect(displayText('\\\u202E')).toBe('\\\\\\u{202E}');
    expect(displayText('\\\\u{41}')).toBe('\\\\\\\\u{41}');
    expect(new Set(['\\u{202E}', '\u202E', '\\\u202E', '\\\\u{202E}'].map(displayText)).size).toBe(4);
  });

  it('is unambiguous: every output reads back to its input, and shows nothing hidden (fuzz)', () => {
    const tricky = fc.constantFrom('\\', 'u', '{', '}', '2', '0', 'E', '\u202E', '\n', '\u001b', 'a', ' ');
    const text = fc.oneof(
      fc.string({ unit: 'binary' }),
      fc.array(tricky, { maxLength: 24 }).map((parts) => parts.join('')),
    );
    fc.assert(
      fc.property(text, (input) => {
        const shown = displayText(input);
        expect(hasHiddenCharacters(shown)).toBe(false);
        expect(readBack(shown)).toBe(input);
      }),
      { numRuns: 2_000 },
    );
  });

  it('says when a text has anything it would escape', () => {
    expect(hasHiddenCharacters('plain text')).toBe(false);
    expect(hasHiddenCharacters('\\u{202E}')).toBe(false);
    expect(hasHiddenCharacters('evil\u202E')).toBe(true);
  });

  it('keeps the lines of a diff or file as lines (LF or CRLF), escaping what is inside them', () => {
    expect(displayLines('-a\r\n+b\u202E\n c\r')).toEqual(['-a', '+b\\u{202E}', ' c\\u{0D}']);
  });

  it('keeps the tabs of a diff or file: they are its indentation (issue 24 item 11)', () => {
    expect(displayLines('{\n\t"a": 1,\n+\t\t"b\u202E"\n}')).toEqual([
      '{',
      '\t"a": 1,',
      '+\t\t"b\\u{202E}"',
      '}',
    ]);
    // A single value (a command's argument) still shows a tab as an escape.
    expect(displayText('a\tb')).toBe('a\\u{09}b');
  });

  it('makes an error message safe without escaping what was made safe already', () => {
    const shown = `approve it:\n  command: ${displayText('x\u202E')}`;
    expect(displayMessage(shown)).toBe(shown);
    expect(displayMessage('server "a": "np\u202Ex" was not found\n  hint')).toBe(
      'server "a": "np\\u{202E}x" was not found\n  hint',
    );
  });
});
