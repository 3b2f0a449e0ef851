import { printParseErrorCode, type ParseError } from 'jsonc-parser';

/**
 * JSONC syntax errors in words a person reads, and where they are. One wording for every file
 * Switchboard reads (servers.json, editors' settings) and for the UI's raw JSON editor.
 */
const WORDS: Record<string, string> = {
  InvalidSymbol: 'unexpected character',
  InvalidNumberFormat: 'invalid number',
  PropertyNameExpected: 'expected a property name in double quotes',
  ValueExpected: 'expected a value',
  ColonExpected: 'expected ":"',
  CommaExpected: 'expected ","',
  CloseBraceExpected: 'expected "}"',
  CloseBracketExpected: 'expected "]"',
  EndOfFileExpected: 'unexpected content after the end',
  InvalidCommentToken: 'invalid comment',
  UnexpectedEndOfComment: 'unterminated comment',
  UnexpectedEndOfString: 'unterminated string',
  UnexpectedEndOfNumber: 'unterminated number',
  InvalidUnicode: 'invalid unicode escape',
  InvalidEscapeCharacter: 'invalid escape character',
  InvalidCharacter: 'invalid character',
};

/** "expected a value"; "the file is empty" when there is no error to describe (no content at all). */
export function parseErrorWords(error: ParseError | undefined): string {
  if (!error) return 'the file is empty';
  const code = printParseErrorCode(error.error);
  return WORDS[code] ?? code;
}

/** 1-based line and column of an offset (lines end at "\n"; a "\r" before it counts as a column). */
export function lineColumn(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < offset && i < text.length; i++) {
    if (text.charCodeAt(i) === 10) {
      line++;
      lineStart = i + 1;
    }
  }
  return { line, column: offset - lineStart + 1 };
}
