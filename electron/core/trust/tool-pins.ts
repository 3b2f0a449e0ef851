import type { Prompt, ResourceTemplate, Tool } from '@modelcontextprotocol/sdk/types.js';
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
 * Pinning: everything a server says that reaches a model is pinned at its first sight after an
 * approval, and a change is held back from editors until a person accepts it. What reaches a model:
 * the server's `instructions` (editors put them in the model's context), each tool's name, title,
 * description, input and output schemas, annotations and `_meta` (a changed description can carry new
 * instructions; a changed annotation such as readOnlyHint can make an editor skip asking), and each
 * prompt's name, title, description, arguments and `_meta`, and each resource template's URI template,
 * name, title, description, MIME type, annotations and `_meta` (a new template can take reads on the
 * aggregate /mcp; its description reaches the model). (The module and its types keep the name "tool"
 * from when only tools were pinned.)
 */
export interface PinnedTool {
  name: string;
  title?: string | undefined;
  description?: string | undefined;
  inputSchema?: unknown;
  outputSchema?: unknown;
  annotations?: unknown;
  _meta?: unknown;
}

export interface PinnedPrompt {
  name: string;
  title?: string | undefined;
  description?: string | undefined;
  arguments?: unknown;
  _meta?: unknown;
}

/** A resource template's pinned parts; it is known by its URI template (names need not be unique). */
export interface PinnedTemplate {
  uriTemplate: string;
  name: string;
  title?: string | undefined;
  description?: string | undefined;
  mimeType?: string | undefined;
  annotations?: unknown;
  _meta?: unknown;
}

export function pinnedTemplate(template: ResourceTemplate): PinnedTemplate {
  return {
    uriTemplate: template.uriTemplate,
    name: template.name,
    title: template.title,
    description: template.description,
    mimeType: template.mimeType,
    annotations: template.annotations,
    _meta: template._meta,
  };
}

export function pinnedPart(tool: Tool): PinnedTool {
  return {
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema: tool.inputSchema,
    outputSchema: tool.outputSchema,
    annotations: tool.annotations,
    _meta: tool._meta,
  };
}

export function pinnedPrompt(prompt: Prompt): PinnedPrompt {
  return {
    name: prompt.name,
    title: prompt.title,
    description: prompt.description,
    arguments: prompt.arguments,
    _meta: prompt._meta,
  };
}

/** What a tool was pinned by before outputSchema and _meta were (pin files of version 1). */
function pinnedPartV1(tool: Tool): PinnedTool {
  return {
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema: tool.inputSchema,
    annotations: tool.annotations,
  };
}

/** sha256 of one tool's or prompt's pinned parts (canonical JSON: undefined dropped, keys sorted). */
export function toolHash(item: PinnedTool | PinnedPrompt | PinnedTemplate): string {
  return createHash('sha256').update(canonicalJson(item)).digest('hex');
}

/** sha256 of a whole tool list's pinned parts, in name order (what version-1 approvals recorded). */
export function toolListHash(tools: readonly PinnedTool[]): string {
  return createHash('sha256')
    .update(canonicalJson(byName(tools)))
    .digest('hex');
}

/**
 * What a server says that reaches a model, as it says it now. `prompts` is undefined while not known
 * (before its first prompt list under this approval); `instructions` undefined: it gives none.
 */
export interface ServerSurface {
  instructions: string | undefined;
  tools: readonly Tool[];
  prompts: readonly Prompt[] | undefined;
  /** undefined while not known, as prompts */
  templates: readonly ResourceTemplate[] | undefined;
}

/** The pinned form of a surface: what a pin holds and what a change id is the hash of. */
interface Pinned {
  instructions: string | null;
  tools: PinnedTool[];
  /** null: not pinned yet (the server's prompts were not seen since the approval) */
  prompts: PinnedPrompt[] | null;
  /** null: not pinned yet (not seen since the approval, or a pin from before templates were pinned) */
  templates: PinnedTemplate[] | null;
}

/** sha256 of everything pinned: the id of a change to accept, and what an approval records. */
export function surfaceHash(pinned: Omit<Pinned, 'templates'> & { templates?: Pinned['templates'] }): string {
  const whole = {
    instructions: pinned.instructions,
    tools: byName(pinned.tools),
    prompts: pinned.prompts === null ? null : byName(pinned.prompts),
    // Left out while not pinned: a pin from before templates were pinned keeps the hash its approval recorded.
    ...(pinned.templates == null ? {} : { templates: byUriTemplate(pinned.templates) }),
  };
  return createHash('sha256').update(canonicalJson(whole)).digest('hex');
}

function pinnedOf(surface: ServerSurface): Pinned {
  return {
    instructions: surface.instructions ?? null,
    tools: surface.tools.map((t) => plain(pinnedPart(t))),
    prompts: surface.prompts === undefined ? null : surface.prompts.map((p) => plain(pinnedPrompt(p))),
    templates:
      surface.templates === undefined ? null : surface.templates.map((t) => plain(pinnedTemplate(t))),
  };
}

const PinnedToolSchema = z.object({
  name: z.string(),
  title: z.string().optional(),
  description: z.string().optional(),
  inputSchema: z.unknown().optional(),
  outputSchema: z.unknown().optional(),
  annotations: z.unknown().optional(),
  _meta: z.unknown().optional(),
});
const PinnedPromptSchema = z.object({
  name: z.string(),
  title: z.string().optional(),
  description: z.string().optional(),
  arguments: z.unknown().optional(),
  _meta: z.unknown().optional(),
});
const PinnedTemplateSchema = z.object({
  uriTemplate: z.string(),
  name: z.string(),
  title: z.string().optional(),
  description: z.string().optional(),
  mimeType: z.string().optional(),
  annotations: z.unknown().optional(),
  _meta: z.unknown().optional(),
});
const PinHeader = {
  /** the approval this pin belongs to: another approval (a changed config) pins anew */
  fingerprint: z.string(),
  approvedAt: z.number(),
  pinnedAt: z.number(),
};
/** pins/<name>.json as Switchboard writes it now. */
const PinFileSchema = z.object({
  version: z.literal(2),
  ...PinHeader,
  instructions: z.string().nullable(),
  tools: z.array(PinnedToolSchema),
  prompts: z.array(PinnedPromptSchema).nullable(),
  /** absent in pins written before resource templates were pinned (as null) */
  templates: z.array(PinnedTemplateSchema).nullable().optional(),
});
/** As versions before 2 wrote it: tools only, without outputSchema and _meta. */
const PinFileV1Schema = z.object({ ...PinHeader, tools: z.array(PinnedToolSchema) });
type PinFile = z.infer<typeof PinFileSchema>;
type PinFileV1 = z.infer<typeof PinFileV1Schema>;

export type HeldReason = 'new' | 'changed';

/**
 * What editors get of a server now, against its pin: the tools and prompts that match it (the rest
 * held back until a person accepts them) and the instructions (the pinned ones while the server's
 * differ).
 */
export interface ToolGate {
  /** every tool the server lists now */
  tools: readonly Tool[];
  /** the current tools that match the pin, as the server lists them */
  listed: Tool[];
  /** new or changed tools, held back */
  held: ReadonlyMap<string, HeldReason>;
  /** names editors may call (the listed ones) */
  callable: ReadonlySet<string>;
  prompts: {
    /** the current prompts that match the pin ([] while the server's prompts are not known) */
    listed: Prompt[];
    /** new or changed prompts, held back */
    held: ReadonlyMap<string, HeldReason>;
    /** the pinned prompts' hashes by name; null: none pinned yet (first sight pins them) */
    pinned: ReadonlyMap<string, string> | null;
  };
  templates: {
    /** the current resource templates that match the pin */
    listed: ResourceTemplate[];
    /** new or changed templates, by URI template, held back */
    held: ReadonlyMap<string, HeldReason>;
    /** the pinned templates' hashes by URI template; null: none pinned yet (first sight pins them) */
    pinned: ReadonlyMap<string, string> | null;
  };
  /** the instructions editors get: the server's when they match the pin, else the pinned ones */
  instructions: string | undefined;
  /** the server's instructions differ from the pinned ones (they are not served) */
  instructionsHeld: HeldReason | undefined;
  /** set when something is held: what to show a person, and the id accepting it must carry */
  change: ToolChange | null;
}

/** Whether the bridge may give editors this prompt (from a list it fetched itself). */
export function promptAllowed(gate: ToolGate, prompt: Prompt): boolean {
  const pinned = gate.prompts.pinned;
  return pinned === null || pinned.get(prompt.name) === toolHash(pinnedPrompt(prompt));
}

/** Whether the bridge may give editors this resource template (from a list it fetched itself). */
export function templateAllowed(gate: ToolGate, template: ResourceTemplate): boolean {
  const pinned = gate.templates.pinned;
  return pinned === null || pinned.get(template.uriTemplate) === toolHash(pinnedTemplate(template));
}

/**
 * Each approved server's pin: what it said at its first sight after the approval, or the change a
 * person last accepted (pins/<name>.json, owner-only; its hash also in the approval in state.json, so
 * a pin file that does not match it is not trusted). A pin belongs to one approval: a new approval
 * (the config changed and was approved again) pins again at the next sight.
 */
export class ToolPins {
  readonly #dir: string | null;
  readonly #pins = new Map<string, PinFile | PinFileV1 | null>();

  /** `dir` null keeps pins in memory only. */
  constructor(dir: string | null) {
    this.#dir = dir;
  }

  /**
   * Compares what the server says now with its pin. With no pin for this approval yet, it becomes
   * the pin (`record` records its hash in the approval); so do its prompts, the first time they are
   * known. A pin from before instructions, prompts, output schemas and `_meta` were pinned (version
   * 1) is upgraded: what the server says of those now is taken as approved, and `note` says so.
   */
  gate(
    name: string,
    approval: Approval,
    surface: ServerSurface,
    now: number,
    record: (hash: string) => void,
    note: (text: string) => void,
  ): ToolGate {
    const found = this.#valid(name, approval);
    let pin: PinFile | undefined = found && 'version' in found ? found : undefined;
    if (found && !('version' in found)) {
      const made = this.#write(name, approval, upgraded(found, surface), now);
      record(surfaceHash(made));
      note(upgradeNote(made));
      pin = made;
    } else if (!pin) {
      const current = pinnedOf(surface);
      if (approval.pinsHash === undefined && approval.toolsHash === undefined) {
        pin = this.#write(name, approval, current, now);
        record(surfaceHash(pin));
      } else if (
        approval.pinsHash !== undefined &&
        (approval.pinsHash === surfaceHash(current) ||
          approval.pinsHash === surfaceHash({ ...current, templates: null }))
      ) {
        // The pin file was lost, but this is the very surface the approval pinned (maybe before
        // templates were pinned: they are pinned now, at this sight): write it again.
        pin = this.#write(name, approval, current, now);
        if (approval.pinsHash !== surfaceHash(current)) record(surfaceHash(pin));
      } else if (
        approval.pinsHash === undefined &&
        approval.toolsHash === toolListHash(surface.tools.map(pinnedPartV1))
      ) {
        // A version-1 pin file was lost, and these are its tools: as an upgrade of it.
        const made = this.#write(name, approval, current, now);
        record(surfaceHash(made));
        note(upgradeNote(made));
        pin = made;
      }
    } else if (
      (pin.prompts === null && surface.prompts !== undefined) ||
      ((pin.templates ?? null) === null && surface.templates !== undefined)
    ) {
      // First sight of its prompts or resource templates under this pin: they are pinned as they are.
      const seen = pinnedOf(surface);
      const made = this.#write(
        name,
        approval,
        { ...pin, prompts: pin.prompts ?? seen.prompts, templates: pin.templates ?? seen.templates },
        now,
        pin.pinnedAt,
      );
      record(surfaceHash(made));
      pin = made;
    }
    return compare(name, pin, surface);
  }

  /**
   * Makes what the server says now its pin if it is still what was shown (`change`, its hash);
   * returns false (nothing changes) when it changed since.
   */
  accept(
    name: string,
    approval: Approval,
    surface: ServerSurface,
    change: string,
    now: number,
    record: (hash: string) => void,
  ): boolean {
    const current = pinnedOf(surface);
    if (surfaceHash(current) !== change) return false;
    // Prompts not known now (an idle server listed none since): the pinned ones stay.
    const known = this.#valid(name, approval);
    const prompts = current.prompts ?? (known && 'version' in known ? known.prompts : null);
    const templates = current.templates ?? (known && 'version' in known ? (known.templates ?? null) : null);
    const pin = this.#write(name, approval, { ...current, prompts, templates }, now);
    record(surfaceHash(pin));
    return true;
  }

  /** The server's approval went (removed, denied, changed config): so does its pin. */
  forget(name: string): void {
    this.#pins.set(name, null);
    if (this.#dir !== null) rmSync(this.#file(name), { force: true });
  }

  /** The pin if it belongs to this approval and matches the hash the approval recorded. */
  #valid(name: string, approval: Approval): PinFile | PinFileV1 | undefined {
    const pin = this.#read(name);
    if (!pin || pin.fingerprint !== approval.fingerprint || pin.approvedAt !== approval.approvedAt)
      return undefined;
    if ('version' in pin) {
      if (approval.pinsHash !== undefined && surfaceHash(pin) !== approval.pinsHash) return undefined;
      if (approval.pinsHash === undefined && approval.toolsHash !== undefined) return undefined;
      return pin;
    }
    if (approval.pinsHash !== undefined) return undefined;
    if (approval.toolsHash !== undefined && toolListHash(pin.tools) !== approval.toolsHash) return undefined;
    return pin;
  }

  #write(name: string, approval: Approval, pinned: Pinned, now: number, pinnedAt = now): PinFile {
    const pin: PinFile = {
      version: 2,
      fingerprint: approval.fingerprint,
      approvedAt: approval.approvedAt,
      pinnedAt,
      instructions: pinned.instructions,
      tools: pinned.tools,
      prompts: pinned.prompts,
      templates: pinned.templates,
    };
    this.#pins.set(name, pin);
    if (this.#dir !== null)
      writeFileAtomic(this.#file(name), JSON.stringify(pin, null, 1) + '\n', { mode: 0o600 });
    return pin;
  }

  #read(name: string): PinFile | PinFileV1 | null {
    const known = this.#pins.get(name);
    if (known !== undefined) return known;
    let pin: PinFile | PinFileV1 | null = null;
    if (this.#dir !== null) {
      try {
        const json: unknown = JSON.parse(readFileSync(this.#file(name), 'utf8'));
        const current = PinFileSchema.safeParse(json);
        const old = current.success ? undefined : PinFileV1Schema.safeParse(json);
        pin = current.success ? current.data : old?.success ? old.data : null;
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

/**
 * A version-1 pin (tools only) as version 2: the instructions and prompts the server gives now are
 * taken as approved, and so are the output schema and `_meta` of each tool that still matches its
 * pin; a tool that changed keeps its old pin, so it stays held.
 */
function upgraded(old: PinFileV1, surface: ServerSurface): Pinned {
  const current = new Map(surface.tools.map((t) => [t.name, t]));
  const tools = old.tools.map((pinned) => {
    const now = current.get(pinned.name);
    return now && toolHash(pinnedPartV1(now)) === toolHash(pinned) ? plain(pinnedPart(now)) : pinned;
  });
  const { prompts, templates } = pinnedOf(surface);
  return { instructions: surface.instructions ?? null, tools, prompts, templates };
}

function upgradeNote(pin: PinFile): string {
  const prompts = pin.prompts === null ? 'its prompts when it first lists them' : 'its prompts';
  return (
    `pinned before Switchboard pinned more than tools: ${pin.instructions === null ? 'its lack of instructions' : 'its instructions'}, ` +
    `${prompts}, and its tools' output schemas and _meta, as it gives them now, are taken as approved`
  );
}

/** The gate for `surface` against `pin` (undefined: the pinned definitions are not on record). */
function compare(server: string, pin: PinFile | undefined, surface: ServerSurface): ToolGate {
  const { tools } = surface;
  const pinnedTools = new Map((pin?.tools ?? []).map((t) => [t.name, toolHash(t)]));
  const listed: Tool[] = [];
  const held = new Map<string, HeldReason>();
  for (const tool of tools) {
    const was = pinnedTools.get(tool.name);
    if (was === undefined) held.set(tool.name, 'new');
    else if (was !== toolHash(pinnedPart(tool))) held.set(tool.name, 'changed');
    else listed.push(tool);
  }
  const callable = new Set(listed.map((t) => t.name));

  // Prompts: none pinned yet (and a pin on record) lets every one through; it is pinned at first sight.
  const pinnedPrompts =
    pin === undefined
      ? new Map<string, string>()
      : pin.prompts === null
        ? null
        : new Map(pin.prompts.map((p) => [p.name, toolHash(p)]));
  const promptsListed: Prompt[] = [];
  const promptsHeld = new Map<string, HeldReason>();
  for (const prompt of surface.prompts ?? []) {
    const was = pinnedPrompts === null ? 'any' : pinnedPrompts.get(prompt.name);
    if (was === undefined) promptsHeld.set(prompt.name, 'new');
    else if (was !== 'any' && was !== toolHash(pinnedPrompt(prompt))) promptsHeld.set(prompt.name, 'changed');
    else promptsListed.push(prompt);
  }

  // Resource templates, as prompts: by URI template.
  const pinnedTemplates =
    pin === undefined
      ? new Map<string, string>()
      : (pin.templates ?? null) === null
        ? null
        : new Map((pin.templates ?? []).map((t) => [t.uriTemplate, toolHash(t)]));
  const templatesListed: ResourceTemplate[] = [];
  const templatesHeld = new Map<string, HeldReason>();
  for (const template of surface.templates ?? []) {
    const was = pinnedTemplates === null ? 'any' : pinnedTemplates.get(template.uriTemplate);
    if (was === undefined) templatesHeld.set(template.uriTemplate, 'new');
    else if (was !== 'any' && was !== toolHash(pinnedTemplate(template)))
      templatesHeld.set(template.uriTemplate, 'changed');
    else templatesListed.push(template);
  }

  // Instructions: the server's when they match; else the pinned ones (none, without a pin on record).
  const pinnedInstructions = pin ? (pin.instructions ?? undefined) : undefined;
  const instructionsHeld: HeldReason | undefined =
    surface.instructions === undefined || surface.instructions === pinnedInstructions
      ? undefined
      : pinnedInstructions === undefined
        ? 'new'
        : 'changed';

  const gate = {
    tools,
    listed,
    held,
    callable,
    prompts: { listed: promptsListed, held: promptsHeld, pinned: pinnedPrompts },
    templates: { listed: templatesListed, held: templatesHeld, pinned: pinnedTemplates },
    instructions: instructionsHeld ? pinnedInstructions : surface.instructions,
    instructionsHeld,
  };
  if (held.size === 0 && promptsHeld.size === 0 && templatesHeld.size === 0 && !instructionsHeld)
    return { ...gate, change: null };

  const current = pinnedOf(surface);
  const beforeTools = new Map((pin?.tools ?? []).map((t) => [t.name, t]));
  const beforePrompts = new Map((pin?.prompts ?? []).map((p) => [p.name, p]));
  const toolNames = new Set(tools.map((t) => t.name));
  const promptNames = new Set((surface.prompts ?? []).map((p) => p.name));
  const beforeTemplates = new Map((pin?.templates ?? []).map((t) => [t.uriTemplate, t]));
  const templateKeys = new Set((surface.templates ?? []).map((t) => t.uriTemplate));
  const change: ToolChange = {
    server,
    change: surfaceHash(current),
    pinnedAt: pin?.pinnedAt ?? null,
    added: tools.filter((t) => held.get(t.name) === 'new').map((t) => toolText(pinnedPart(t))),
    changed: tools
      .filter((t) => held.get(t.name) === 'changed')
      .map((t) => ({
        name: displayText(t.name),
        before: toolText(beforeTools.get(t.name) ?? { name: t.name }).lines,
        after: toolText(pinnedPart(t)).lines,
      })),
    removed: (pin?.tools ?? []).filter((t) => !toolNames.has(t.name)).map((t) => displayText(t.name)),
    instructions: instructionsHeld
      ? {
          before: pinnedInstructions === undefined ? null : displayLines(pinnedInstructions),
          after: displayLines(surface.instructions ?? ''),
        }
      : null,
    prompts: {
      added: (surface.prompts ?? [])
        .filter((p) => promptsHeld.get(p.name) === 'new')
        .map((p) => promptText(pinnedPrompt(p))),
      changed: (surface.prompts ?? [])
        .filter((p) => promptsHeld.get(p.name) === 'changed')
        .map((p) => ({
          name: displayText(p.name),
          before: promptText(beforePrompts.get(p.name) ?? { name: p.name }).lines,
          after: promptText(pinnedPrompt(p)).lines,
        })),
      removed:
        surface.prompts === undefined
          ? []
          : (pin?.prompts ?? []).filter((p) => !promptNames.has(p.name)).map((p) => displayText(p.name)),
    },
    resourceTemplates: {
      added: (surface.templates ?? [])
        .filter((t) => templatesHeld.get(t.uriTemplate) === 'new')
        .map((t) => templateText(pinnedTemplate(t))),
      changed: (surface.templates ?? [])
        .filter((t) => templatesHeld.get(t.uriTemplate) === 'changed')
        .map((t) => ({
          name: displayText(t.uriTemplate),
          before: templateText(
            beforeTemplates.get(t.uriTemplate) ?? { uriTemplate: t.uriTemplate, name: t.name },
          ).lines,
          after: templateText(pinnedTemplate(t)).lines,
        })),
      removed:
        surface.templates === undefined
          ? []
          : (pin?.templates ?? [])
              .filter((t) => !templateKeys.has(t.uriTemplate))
              .map((t) => displayText(t.uriTemplate)),
    },
    baselineMissing: pin === undefined,
  };
  return { ...gate, change };
}

/**
 * A tool as lines a person reads and diffs: title, description, input and output schemas (keys
 * sorted, so order alone is no change), annotations and `_meta`, every line display-safe.
 */
export function toolText(tool: PinnedTool): ToolText {
  const lines: string[] = [];
  if (tool.title !== undefined) lines.push(`title: ${displayText(tool.title)}`);
  describe(lines, tool.description);
  block(lines, 'input', tool.inputSchema);
  block(lines, 'output', tool.outputSchema);
  if (tool.annotations !== undefined)
    lines.push(`annotations: ${displayText(canonicalJson(tool.annotations))}`);
  if (tool._meta !== undefined) lines.push(`_meta: ${displayText(canonicalJson(tool._meta))}`);
  return { name: displayText(tool.name), lines };
}

/** A prompt as lines a person reads and diffs: title, description, arguments and `_meta`. */
export function promptText(prompt: PinnedPrompt): ToolText {
  const lines: string[] = [];
  if (prompt.title !== undefined) lines.push(`title: ${displayText(prompt.title)}`);
  describe(lines, prompt.description);
  block(lines, 'arguments', prompt.arguments);
  if (prompt._meta !== undefined) lines.push(`_meta: ${displayText(canonicalJson(prompt._meta))}`);
  return { name: displayText(prompt.name), lines };
}

/**
 * A resource template as lines a person reads and diffs, named by its URI template: its name, title,
 * description, MIME type, annotations and `_meta`.
 */
export function templateText(template: PinnedTemplate): ToolText {
  const lines: string[] = [`name: ${displayText(template.name)}`];
  if (template.title !== undefined) lines.push(`title: ${displayText(template.title)}`);
  describe(lines, template.description);
  if (template.mimeType !== undefined) lines.push(`mimeType: ${displayText(template.mimeType)}`);
  if (template.annotations !== undefined)
    lines.push(`annotations: ${displayText(canonicalJson(template.annotations))}`);
  if (template._meta !== undefined) lines.push(`_meta: ${displayText(canonicalJson(template._meta))}`);
  return { name: displayText(template.uriTemplate), lines };
}

function describe(lines: string[], description: string | undefined): void {
  if (description === undefined) {
    lines.push('description: (none)');
    return;
  }
  lines.push('description:');
  for (const line of displayLines(description)) lines.push(`  ${line}`);
}

function block(lines: string[], label: string, value: unknown): void {
  if (value === undefined) return;
  lines.push(`${label}:`);
  for (const line of displayLines(JSON.stringify(JSON.parse(canonicalJson(value)), null, 2)))
    lines.push(`  ${line}`);
}

function byName<T extends { name: string }>(items: readonly T[]): T[] {
  return [...items].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

function byUriTemplate(items: readonly PinnedTemplate[]): PinnedTemplate[] {
  return [...items].sort((a, b) =>
    a.uriTemplate < b.uriTemplate ? -1 : a.uriTemplate > b.uriTemplate ? 1 : 0,
  );
}

/** The JSON form (undefined dropped): what a pin file holds, so hashes match once read back. */
function plain<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}
