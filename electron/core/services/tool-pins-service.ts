import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { EventEmitter } from 'node:events';
import type { ToolChange, ToolReview } from '../../../shared/api.ts';
import { displayText } from '../../../shared/display-text.ts';
import type { ServerStatus } from '../../../shared/status.ts';
import { compileToolFilter } from '../../../shared/tool-filter.ts';
import type { Clock } from '../clock.ts';
import type { CoreEvents } from '../core-events.ts';
import { StaleToolChangeError, UserError } from '../errors.ts';
import type { ServerLists } from '../lists/server-lists.ts';
import type { ServerEntry } from '../server-entry.ts';
import type { Supervisor } from '../supervisor/supervisor.ts';
import type { AppStateStore } from '../trust/app-state.ts';
import type { ServerSurface, ToolGate, ToolPins } from '../trust/tool-pins.ts';

export interface ToolPinsServiceOptions {
  state: Pick<AppStateStore, 'approval' | 'setPinsHash'>;
  clock: Clock;
  pins: ToolPins;
  events: Pick<EventEmitter<CoreEvents>, 'emit'>;
  servers: { entries(): ReadonlyMap<string, ServerEntry>; entry(name: string): ServerEntry };
  statuses: { of(name: string): ServerStatus | undefined };
  /** the running supervisor (absent when nothing runs here) and the lists of servers' last runs */
  live: {
    supervisor(): Pick<Supervisor, 'runner' | 'note'> | undefined;
    lists(name: string): ServerLists | undefined;
  };
}

/**
 * What editors get of each server against its pin (trust/tool-pins.ts): its instructions, tools and
 * prompts as approved, the changes held back for a decision, and accepting them.
 */
export class ToolPinsService {
  readonly #o: ToolPinsServiceOptions;
  /** each server's tool gate, for the tools it was computed from (recomputed when they change) */
  readonly #gates = new Map<string, { tools: readonly Tool[]; approvedAt: number; gate: ToolGate }>();
  /** the change id last announced per server (toolChange events fire when it differs) */
  readonly #announced = new Map<string, string | null>();

  constructor(options: ToolPinsServiceOptions) {
    this.#o = options;
  }

  /**
   * What editors get of the server against its pin: its tools and prompts that match it, and its
   * instructions (the pinned ones while they differ); undefined while its tools are not known or it is
   * not approved. The first sight after an approval becomes its pin. Called on every tool call: a hit
   * is the tools lookup it always was.
   */
  toolGate(name: string): ToolGate | undefined {
    const tools = this.currentTools(name);
    const entry = this.#o.servers.entries().get(name);
    if (!tools || !entry) return undefined;
    const cached = this.#gates.get(name);
    if (cached?.tools === tools) return cached.gate;
    const approval = this.#o.state.approval(name);
    if (!approval || approval.fingerprint !== entry.fingerprint) return undefined;
    const gate = this.#o.pins.gate(
      name,
      approval,
      this.#surface(name, tools),
      this.#o.clock.now(),
      (hash) => this.#o.state.setPinsHash(name, hash),
      (text) => this.#serverNote(name, text),
    );
    this.#gates.set(name, { tools, approvedAt: approval.approvedAt, gate });
    return gate;
  }

  /** The gate last computed for the server, without computing it (what its status shows as held). */
  cachedGate(name: string): ToolGate | undefined {
    return this.#gates.get(name)?.gate;
  }

  /** Its approval or lists changed: the next look computes its gate afresh. */
  invalidate(name: string): void {
    this.#gates.delete(name);
  }

  /** A server that left servers.json: nothing of its gate is kept. */
  forget(name: string): void {
    this.#gates.delete(name);
    this.#announced.delete(name);
    this.#o.pins.forget(name);
  }

  /** What the server pinned and the change waiting for a decision (`switchboard tools NAME`). */
  toolReview(name: string): ToolReview {
    const entry = this.#o.servers.entry(name);
    const status = this.#o.statuses.of(name);
    const gate = this.toolGate(name);
    const tools = this.currentTools(name) ?? [];
    const prompts = this.#o.live.lists(name)?.prompts ?? [];
    const known = gate !== undefined;
    const offered = compileToolFilter(entry.config.tools);
    const instructions = !gate
      ? 'none'
      : (gate.instructionsHeld ?? (gate.instructions === undefined ? 'none' : 'pinned'));
    return {
      server: name,
      state: status?.state ?? 'pending-approval',
      known,
      tools: gate
        ? tools.map((t) => ({
            name: displayText(t.name),
            pin: gate.held.get(t.name) ?? 'pinned',
            excluded: !offered(t.name),
          }))
        : [],
      prompts: gate
        ? prompts.map((p) => ({ name: displayText(p.name), pin: gate.prompts.held.get(p.name) ?? 'pinned' }))
        : [],
      instructions,
      change: gate?.change ?? null,
    };
  }

  /** Every server whose instructions, tools or prompts wait for a decision, with what changed. */
  toolChanges(): ToolChange[] {
    const changes: ToolChange[] = [];
    for (const name of this.#o.servers.entries().keys()) {
      const change = this.toolGate(name)?.change;
      if (change) changes.push(change);
    }
    return changes;
  }

  /**
   * Accepts the change that was shown (`change`, from toolReview or the approvals list): what the
   * server says now becomes its pin and editors get it. One that changed again since it was shown
   * is refused (StaleToolChangeError).
   */
  acceptTools(name: string, change: string): void {
    this.#o.servers.entry(name);
    const tools = this.currentTools(name);
    const approval = this.#o.state.approval(name);
    const entry = this.#o.servers.entries().get(name);
    if (!tools || !approval || approval.fingerprint !== entry?.fingerprint)
      throw new UserError(`the tools of "${name}" are not known yet`, {
        hint: 'it lists them once it has run since it was approved',
      });
    const accepted = this.#o.pins.accept(
      name,
      approval,
      this.#surface(name, tools),
      change,
      this.#o.clock.now(),
      (hash) => this.#o.state.setPinsHash(name, hash),
    );
    if (!accepted) throw new StaleToolChangeError(name);
    this.#gates.delete(name);
    this.toolsChanged(name);
  }

  /** The tools as the server lists them now: live while it runs, else from its last run. */
  currentTools(name: string): readonly Tool[] | undefined {
    const runner = this.#o.live.supervisor()?.runner(name);
    if (runner?.state === 'running' && runner.toolsKnown) return runner.tools;
    return this.#o.live.lists(name)?.tools;
  }

  /**
   * What the server says that reaches a model, with these tools (see currentTools): its instructions
   * from this run's initialize while it runs, else from its last run; its prompts from its last
   * complete lists (the ones editors are answered from).
   */
  #surface(name: string, tools: readonly Tool[]): ServerSurface {
    const runner = this.#o.live.supervisor()?.runner(name);
    const lists = this.#o.live.lists(name);
    const live = runner?.state === 'running' && runner.toolsKnown && runner.tools === tools;
    return {
      tools,
      instructions: live ? runner.client?.getInstructions() : lists?.instructions,
      prompts: lists?.prompts,
      templates: lists?.resourceTemplates,
    };
  }

  /** A line in the server's log; with no serve running (a CLI command on the files), on stderr. */
  #serverNote(name: string, text: string): void {
    const supervisor = this.#o.live.supervisor();
    if (supervisor) supervisor.note(name, text);
    else console.error(`switchboard: "${name}": ${text}`);
  }

  /** The server's pinned surface may have changed: pins on first sight, and says so if what is held changed. */
  toolsChanged(name: string): void {
    const change = this.toolGate(name)?.change?.change ?? null;
    if ((this.#announced.get(name) ?? null) === change) return;
    this.#announced.set(name, change);
    const status = this.#o.statuses.of(name);
    if (status) this.#o.events.emit('status', status);
    this.#o.events.emit('toolChange', name);
  }
}
