import type { ToolChange } from '../../shared/api.ts';

/** The parts of a tool's text (see trust/tool-pins.ts toolText) a line belongs to, in words. */
const PARTS: Record<string, string> = {
  title: 'title',
  description: 'description',
  input: 'inputs',
  annotations: 'annotations',
};

/** Which parts of a changed tool differ: "description and inputs". */
export function changedParts(before: readonly string[], after: readonly string[]): string {
  const sections = (lines: readonly string[]) => {
    const out = new Map<string, string[]>();
    let current = '';
    for (const line of lines) {
      if (!line.startsWith(' ')) current = line.slice(0, Math.max(0, line.indexOf(':')));
      const section = out.get(current) ?? [];
      section.push(line);
      out.set(current, section);
    }
    return out;
  };
  const a = sections(before);
  const b = sections(after);
  const parts: string[] = [];
  for (const key of Object.keys(PARTS)) {
    if ((a.get(key) ?? []).join('\n') !== (b.get(key) ?? []).join('\n')) parts.push(PARTS[key] ?? key);
  }
  if (parts.length === 0) return 'definition';
  return parts.length === 1 ? (parts[0] ?? '') : `${parts.slice(0, -1).join(', ')} and ${parts.at(-1)}`;
}

/**
 * A change to a server's tools in a few lines a person reads at a glance (a notification, the tray):
 * each new tool, each changed one with what changed in it, each removed one; at most `max` lines.
 */
export function toolChangeLines(change: ToolChange, max = 8): string[] {
  const lines = [
    ...change.added.map((t) => `+ new tool ${t.name}`),
    ...change.changed.map((t) => `~ ${t.name}: ${changedParts(t.before, t.after)} changed`),
    ...change.removed.map((name) => `− ${name} removed`),
  ];
  if (lines.length <= max) return lines;
  return [...lines.slice(0, max - 1), `… and ${lines.length - max + 1} more`];
}
