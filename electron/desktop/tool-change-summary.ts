import type { ToolChange } from '../../shared/api.ts';
import { wordList } from '../../shared/word-list.ts';

/** The parts of a tool's or prompt's text (trust/tool-pins.ts toolText, promptText), in words. */
const PARTS: Record<string, string> = {
  title: 'title',
  description: 'description',
  input: 'inputs',
  output: 'output',
  arguments: 'arguments',
  annotations: 'annotations',
  _meta: '_meta',
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
 * A change to what a server gives (its instructions, tools and prompts) in a few lines a person reads
 * at a glance (a notification, the tray): its instructions, each new tool or prompt, each changed one
 * with what changed in it, each removed one; at most `max` lines.
 */
export function toolChangeLines(change: ToolChange, max = 8): string[] {
  const lines = [
    ...(change.instructions
      ? [change.instructions.before === null ? '+ new instructions' : '~ instructions changed']
      : []),
    ...change.added.map((t) => `+ new tool ${t.name}`),
    ...change.changed.map((t) => `~ ${t.name}: ${changedParts(t.before, t.after)} changed`),
    ...change.prompts.added.map((p) => `+ new prompt ${p.name}`),
    ...change.prompts.changed.map((p) => `~ prompt ${p.name}: ${changedParts(p.before, p.after)} changed`),
    ...change.removed.map((name) => `− ${name} removed`),
    ...change.prompts.removed.map((name) => `− prompt ${name} removed`),
    ...change.resourceTemplates.added.map((t) => `+ new resource template ${t.name}`),
    ...change.resourceTemplates.changed.map(
      (t) => `~ resource template ${t.name}: ${changedParts(t.before, t.after)} changed`,
    ),
    ...change.resourceTemplates.removed.map((name) => `− resource template ${name} removed`),
  ];
  if (lines.length <= max) return lines;
  return [...lines.slice(0, max - 1), `… and ${lines.length - max + 1} more`];
}

/** What a change holds back, in words ("tools and instructions"), and how many things. */
export function changeWhat(change: ToolChange): { words: string; held: number } {
  const tools = change.added.length + change.changed.length;
  const prompts = change.prompts.added.length + change.prompts.changed.length;
  const templates = change.resourceTemplates.added.length + change.resourceTemplates.changed.length;
  const words = wordList([
    ...(tools ? ['tools'] : []),
    ...(prompts ? ['prompts'] : []),
    ...(templates ? ['resource templates'] : []),
    ...(change.instructions ? ['instructions'] : []),
  ]);
  return { words: words || 'tools', held: tools + prompts + templates + (change.instructions ? 1 : 0) };
}
