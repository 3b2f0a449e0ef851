import { editDistance } from './edit-distance.ts';
import { SECRET_NAME_PATTERN } from './secrets.ts';

// What is wrong with the `${secret:NAME}` / `${env:NAME}` references in a value, said where the value
// is checked (the servers.json schema: the file's errors, `add`, the UI's form). A reference that is
// almost right (`${secrets:x}`, `${Secret:x}`, `$secret:x`, `{env:X}`) would otherwise be passed to
// the server as literal text, and under a secret-like name even stored in the keychain as a "secret".

type Kind = 'secret' | 'env';

const ENV_NAME_PATTERN = /^[A-Za-z_][A-Za-z0-9_]*$/;
const EXACT = /\$\{(secret|env):([^}]*)\}/g;
const UNTERMINATED = /\$\{(secret|env):[^}]*$/;
/** an opening, a word, a separator, a name, and maybe a closing: anything shaped like a reference */
const SHAPE =
  /(\$\{\{|\$\{|\$\(|\$\[|\{\{|\{|\$)(\s*)([A-Za-z]+)(\s*)([:./=-])(\s*)([^\s{}()[\]]*)(\s*)(\}\}|[}\])])?/g;

export interface ReferenceCheckOptions {
  /**
   * In args, `$env:NAME` is left alone: it is PowerShell's own syntax, for a shell the server may
   * start. Anywhere else (env, headers, url) nothing expands it.
   */
  inArgs?: boolean;
}

/** The first problem with the references in `value`, in words, or undefined when there is none. */
export function referenceProblem(value: string, options: ReferenceCheckOptions = {}): string | undefined {
  if (!value.includes('{') && !value.includes('$')) return undefined;
  for (const match of value.matchAll(EXACT)) {
    const kind = match[1] as Kind;
    const name = match[2] ?? '';
    // `${secret: x}`: spaces only, said below with the reference meant.
    if (name.trim() !== name && nameFits(kind, name.trim())) continue;
    if (kind === 'secret' && !SECRET_NAME_PATTERN.test(name))
      return name.trim() === ''
        ? `"\${secret:}" names no secret: write \${secret:NAME}, NAME as in the keychain`
        : `"\${secret:${name}}" is not a valid secret reference: names use 1 to 64 letters, digits, ".", "-" or "_"`;
    if (kind === 'env' && !ENV_NAME_PATTERN.test(name))
      return name.trim() === ''
        ? `"\${env:}" names no environment variable: write \${env:NAME}`
        : `"\${env:${name}}" is not a valid environment reference: names use letters, digits and "_" and do not start with a digit`;
  }
  const open = UNTERMINATED.exec(value.replace(EXACT, ''));
  if (open) return `"${open[0]}" is missing its closing "}"`;
  for (const match of value.matchAll(SHAPE)) {
    const [whole, opening = '', , word = '', , separator = '', , name = '', , closing = ''] = match;
    const spaced = match[2] || match[4] || match[6] || match[8];
    const kind = meantKind(word, opening);
    if (!kind) continue;
    const exact = opening === '${' && word === kind && separator === ':' && closing === '}' && !spaced;
    if (exact) continue;
    if (!looksMeant({ opening, word, kind, separator, name, closing, spaced: Boolean(spaced) }, options))
      continue;
    const meant = name === '' ? `\${${kind}:NAME}` : `\${${kind}:${name}}`;
    return `"${whole.trim()}" looks like a reference but is not one (it would be passed on as written): did you mean "${meant}"?`;
  }
  return undefined;
}

/** Which reference a word was meant as: the same in another case, or a letter or two off. */
function meantKind(word: string, opening: string): Kind | undefined {
  const lower = word.toLowerCase();
  if (lower === 'secret' || lower === 'secrets') return 'secret';
  if (lower === 'env') return 'env';
  // Misspellings only right after `${`, where nothing but a reference is expected.
  if (opening !== '${') return undefined;
  if (lower.length >= 4 && editDistance(lower, 'secret') <= 2) return 'secret';
  if (lower.length >= 2 && editDistance(lower, 'env') <= 1) return 'env';
  return undefined;
}

interface Shape {
  opening: string;
  word: string;
  kind: Kind;
  separator: string;
  name: string;
  closing: string;
  spaced: boolean;
}

/** Whether a reference-shaped piece was meant as one, by how it opens. */
function looksMeant(shape: Shape, options: ReferenceCheckOptions): boolean {
  switch (shape.opening) {
    case '${':
    case '${{':
    case '$(':
    case '$[':
    case '{{':
      return true;
    // opencode's `{env:NAME}`; a bare brace elsewhere (JSON, code in an arg) has spaces or quotes.
    case '{':
      return shape.separator === ':' && !shape.spaced && shape.closing === '}' && validName(shape);
    // `$secret:x`; `$env:X` is PowerShell's in args.
    case '$':
      return (
        shape.separator === ':' &&
        !shape.spaced &&
        validName(shape) &&
        (shape.kind === 'secret' || !options.inArgs)
      );
    default:
      return false;
  }
}

function validName({ kind, name }: Shape): boolean {
  return nameFits(kind, name);
}

function nameFits(kind: Kind, name: string): boolean {
  return (kind === 'secret' ? SECRET_NAME_PATTERN : ENV_NAME_PATTERN).test(name);
}
