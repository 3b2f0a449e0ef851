/** How a JSONC file is laid out, detected from it, so what we insert looks like what is there. */
export interface TextFormat {
  eol: string;
  /** one level of indentation: "\t" or N spaces */
  unit: string;
}

/**
 * Pretty JSON whose continuation lines start at `indent`, in the file's unit and line endings. Short
 * arrays of plain values stay on one line (`"args": ["-y", "pkg"]`), as people write them. Used for
 * what Switchboard inserts into servers.json and into editors' files.
 */
export function renderBlock(value: unknown, indent: string, format: TextFormat): string {
  if (Array.isArray(value)) {
    if (value.length === 0) return '[]';
    const inline = renderInline(value);
    if (value.every((v) => typeof v !== 'object' || v === null) && inline.length <= 80) return inline;
    const inner = indent + format.unit;
    return `[${value.map((v) => `${format.eol}${inner}${renderBlock(v, inner, format)}`).join(',')}${format.eol}${indent}]`;
  }
  if (isPlainObject(value)) {
    const entries = Object.entries(value);
    if (entries.length === 0) return '{}';
    const inner = indent + format.unit;
    const lines = entries.map(
      ([k, v]) => `${format.eol}${inner}${JSON.stringify(k)}: ${renderBlock(v, inner, format)}`,
    );
    return `{${lines.join(',')}${format.eol}${indent}}`;
  }
  return JSON.stringify(value);
}

/** One-line JSON with a space after ":" and ",", for values inside one-line objects. */
export function renderInline(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(renderInline).join(', ')}]`;
  if (isPlainObject(value)) {
    const entries = Object.entries(value).map(([k, v]) => `${JSON.stringify(k)}: ${renderInline(v)}`);
    return entries.length === 0 ? '{}' : `{ ${entries.join(', ')} }`;
  }
  return JSON.stringify(value);
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
