import { lineIndent, rootInfo, type ObjectInfo, type PropInfo } from './jsonc-entries.ts';

// The servers object of a JSON/JSONC file edited on its own, as a window cut out of the file and
// pasted back, so the cost of an edit does not grow with the rest of the file.

export interface Window {
  /** the indentation of the line the servers object starts on, then the object's text */
  text: string;
  lead: string;
  /** where the object starts in the file */
  at: number;
  /** its length in the file */
  length: number;
}

/** The servers object's text, behind the indentation of its line (so edits indent as in the file). */
export function cut(text: string, prop: PropInfo): Window {
  const lead = lineIndent(text, prop.valueOffset);
  return {
    text: lead + text.slice(prop.valueOffset, prop.end),
    lead,
    at: prop.valueOffset,
    length: prop.end - prop.valueOffset,
  };
}

/** Puts an edited window back, moving what follows it. */
export function paste(
  text: string,
  root: ObjectInfo,
  container: PropInfo,
  window: Window,
  edited: string,
): { text: string; root: ObjectInfo; container: PropInfo } {
  const inner = edited.slice(window.lead.length);
  const delta = inner.length - window.length;
  const out = text.slice(0, window.at) + inner + text.slice(window.at + window.length);
  const move = (p: PropInfo): PropInfo =>
    p.offset > container.offset
      ? { ...p, offset: p.offset + delta, end: p.end + delta, valueOffset: p.valueOffset + delta }
      : p;
  const props = root.props.map((p) => (p === container ? { ...p, end: p.end + delta } : move(p)));
  const moved = props[root.props.indexOf(container)] ?? container;
  return { text: out, root: { open: root.open, close: root.close + delta, props }, container: moved };
}

/** The text between property `i` (-1: the opening brace) and the one after it (or the closing brace). */
export function between(w: string, i: number): string {
  const info = rootInfo(w);
  const from = i < 0 ? info.open + 1 : (info.props[i]?.end ?? info.open + 1);
  return w.slice(from, info.props[i + 1]?.offset ?? info.close);
}
