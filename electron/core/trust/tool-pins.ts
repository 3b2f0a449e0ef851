import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { createHash } from 'node:crypto';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import type { ToolChange, ToolText } from '../../../shared/api.ts';
import { displayLines, displayText } from '../../../shared/display-text.ts';
import type { Approval } from '../../../shared/schema/state.ts';
import { writeFileAtomic } from '../fs/atomic-write.ts';
import { canonicalJson } from './canonical-json.ts';

/**
 * What a tool is pinned by: what an editor's model reads and decides with. Its name, title and
 * description (a changed description can carry new instructions), its input schema (what it is
 * given) and its annotations (hints like readOnlyHint, on which editors may skip asking).
 */
export interface PinnedTool {
  name: string;
  title?: string | undefined;
  description?: string | undefined;
  inputSchema?: unknown;
  annotations?: unknown;
}

export function pinnedPart(tool: Tool): PinnedTool {
  return {
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema: tool.inputSchema,
    annotations: tool.annotations,
  };
}

/** sha256 of one tool's pinned parts (canonical JSON). */
export function toolHash(tool: PinnedTool): string {
  return createHash('sha256').update(canonicalJson(tool)).digest('hex');
}

/** sha256 of a whole tool list's pinned parts, in name order: the id of a change to accept. */
export function toolListHash(tools: readonly PinnedTool[]): string {
  const sorted = [...tools].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return createHash('sha256').update(canonicalJson(sorted)).digest('hex');
}

const PinFileSchema = z.object({
  /** the approval this pin belongs to: another approval (a changed config) pins anew */
  fingerprint: z.string(),
  approvedAt: z.number(),
  pinnedAt: z.number(),
  tools: z.array(
    z.object({
      name: z.string(),
      title: z.string().optional(),
      description: z.string().optional(),
      inputSchema: z.unknown().optional(),
      annotations: z.unknown().optional(),
    }),
  ),
});
type PinFile = z.infer<typeof PinFileSchema>;

export type HeldReason = 'new' | 'changed';

/** Which of a server's current tools editors get: the rest are held back until a person accepts them. */
export interface ToolGate {
  /** every tool the server lists now */
  tools: readonly Tool[];
  /** the current tools that match the pin, as the server lists them */
  listed: Tool[];
  /** new or changed tools, held back */
  held: ReadonlyMap<string, HeldReason>;
  /** names editors may call (the listed ones) */
  callable: ReadonlySet<string>;
  /** set when something is held: what to show a person, and the id accepting it must carry */
  change: ToolChange | null;
}

/**
 * Each approved server's tool list as pinned: the first list seen after its approval, or the change a
 * person last accepted (pins/<name>.json, owner-only; its hash also in the approval in state.json, so
 * a pin file that does not match it is not trusted). A pin belongs to one approval: a new approval
 * (the config changed and was approved again) pins again at the next list.
 */
export class ToolPins {
  readonly #dir: string | null;
  readonly #pins = new Map<string, PinFile | null>();

  /** `dir` null keeps pins in memory only. */
  constructor(dir: string | null) {
    this.#dir = dir;
  }

  /**
   * Compares the server's tools with its pin. With no pin for this approval yet, these tools become
   * the pin (`recordHash` records their hash in the approval): the first list after an approval is
   * what the approval pins.
   */
  gate(
    name: string,
    approval: Approval,
    tools: readonly Tool[],
    now: number,
    recordHash: (hash: string) => void,
  ): ToolGate {
    let pin = this.#valid(name, approval);
    if (!pin && approval.toolsHash === undefined) {
      pin = this.#write(name, approval, tools, now);
      recordHash(toolListHash(pin.tools));
    } else if (!pin && approval.toolsHash === toolListHash(tools.map(pinnedPart))) {
      // The pin file was lost, but these are the very tools the approval pinned: write it again.
      pin = this.#write(name, approval, tools, now);
    }
    return compare(name, pin, tools);
  }

  /**
   * Makes `tools` the server's pin if they are still the list that was shown (`change`, their hash);
   * returns false (nothing changes) when the tools changed since.
   */
  accept(
    name: string,
    approval: Approval,
    tools: readonly Tool[],
    change: string,
    now: number,
    recordHash: (hash: string) => void,
  ): boolean {
    const hash = toolListHash(tools.map(pinnedPart));
    if (hash !== change) return false;
    this.#write(name, approval, tools, now);
    recordHash(hash);
    return true;
  }

  /** The server's approval went (removed, denied, changed config): so does its pin. */
  forget(name: string): void {
    this.#pins.set(name, null);
    if (this.#dir !== null) rmSync(this.#file(name), { force: true });
  }

  /** The pin if it belongs to this approval and matches the hash the approval recorded. */
  #valid(name: string, approval: Approval): PinFile | undefined {
    const pin = this.#read(name);
    if (!pin || pin.fingerprint !== approval.fingerprint || pin.approvedAt !== approval.approvedAt)
      return undefined;
    if (approval.toolsHash !== undefined && toolListHash(pin.tools) !== approval.toolsHash) return undefined;
    return pin;
  }

  #write(name: string, approval: Approval, tools: readonly Tool[], now: number): PinFile {
    const pin: PinFile = {
      fingerprint: approval.fingerprint,
      approvedAt: approval.approvedAt,
      pinnedAt: now,
      tools: tools.map((tool) => JSON.parse(JSON.stringify(pinnedPart(tool))) as PinFile['tools'][number]),
    };
    this.#pins.set(name, pin);
    if (this.#dir !== null)
      writeFileAtomic(this.#file(name), JSON.stringify(pin, null, 1) + '\n', { mode: 0o600 });
    return pin;
  }

  #read(name: string): PinFile | null {
    const known = this.#pins.get(name);
    if (known !== undefined) return known;
    let pin: PinFile | null = null;
    if (this.#dir !== null) {
      try {
        const parsed = PinFileSchema.safeParse(JSON.parse(readFileSync(this.#file(name), 'utf8')));
        if (parsed.success) pin = parsed.data;
      } catch {
        pin = null; // missing or damaged: the approval's hash decides (see gate)
      }
    }
    this.#pins.set(name, pin);
    return pin;
  }

  #file(name: string): string {
    return join(this.#dir ?? '', `${name}.json`);
  }
}

/** The gate for `tools` against `pin` (undefined: the pinned definitions are not on record). */
function compare(server: string, pin: PinFile | undefined, tools: readonly Tool[]): ToolGate {
  const pinned = new Map((pin?.tools ?? []).map((t) => [t.name, toolHash(t)]));
  const listed: Tool[] = [];
  const held = new Map<string, HeldReason>();
  for (const tool of tools) {
    const was = pinned.get(tool.name);
    if (was === undefined) held.set(tool.name, 'new');
    else if (was !== toolHash(pinnedPart(tool))) held.set(tool.name, 'changed');
    else listed.push(tool);
  }
  const callable = new Set(listed.map((t) => t.name));
  if (held.size === 0) return { tools, listed, held, callable, change: null };
  const current = new Set(tools.map((t) => t.name));
  const before = new Map((pin?.tools ?? []).map((t) => [t.name, t]));
  const change: ToolChange = {
    server,
    change: toolListHash(tools.map(pinnedPart)),
    pinnedAt: pin?.pinnedAt ?? null,
    added: tools.filter((t) => held.get(t.name) === 'new').map((t) => toolText(pinnedPart(t))),
    changed: tools
      .filter((t) => held.get(t.name) === 'changed')
      .map((t) => ({
        name: displayText(t.name),
        before: toolText(before.get(t.name) ?? { name: t.name }).lines,
        after: toolText(pinnedPart(t)).lines,
      })),
    removed: (pin?.tools ?? []).filter((t) => !current.has(t.name)).map((t) => displayText(t.name)),
    baselineMissing: pin === undefined,
  };
  return { tools, listed, held, callable, change };
}

/**
 * A tool as lines a person reads and diffs: title, description, input schema (keys sorted, so order
 * alone is no change) and annotations, every line display-safe.
 */
export function toolText(tool: PinnedTool): ToolText {
  const lines: string[] = [];
  if (tool.title !== undefined) lines.push(`title: ${displayText(tool.title)}`);
  if (tool.description !== undefined) {
    lines.push('description:');
    for (const line of displayLines(tool.description)) lines.push(`  ${line}`);
  } else lines.push('description: (none)');
  if (tool.inputSchema !== undefined) {
    lines.push('input:');
    for (const line of displayLines(JSON.stringify(JSON.parse(canonicalJson(tool.inputSchema)), null, 2)))
      lines.push(`  ${line}`);
  }
  if (tool.annotations !== undefined)
    lines.push(`annotations: ${displayText(canonicalJson(tool.annotations))}`);
  return { name: displayText(tool.name), lines };
}
