import { EventEmitter } from 'node:events';
import type { EditorId } from '../../../shared/editors.ts';
import { startedBefore, type AppControl } from '../desktop-apps/index.ts';
import { desktopAppOf } from './processes.ts';
import { allEditors } from './registry.ts';
import type { EditorAdapter } from './types.ts';

export interface RestartState {
  /** it runs since before Switchboard last wrote its file: it has not read it */
  pending: boolean;
  /** undefined: cannot be told here */
  running: boolean | undefined;
}

export interface RestartWatchOptions {
  /** lists the app's processes (undefined: not on this OS) */
  control: AppControl | undefined;
  /** when Switchboard last wrote the editor's file (state.json), if ever */
  writtenAt: (editor: EditorId) => number | undefined;
  /** re-check this often while a restart is pending (it clears when the person restarts the app) */
  intervalMs?: number;
}

const IDLE: RestartState = { pending: false, running: undefined };

/** One editor's state now: never pending when Switchboard never wrote its file, or cannot list processes. */
export async function restartState(
  adapter: EditorAdapter,
  writtenAt: number | undefined,
  control: AppControl | undefined,
): Promise<RestartState> {
  const app = desktopAppOf(adapter);
  if (!app || !adapter.restartNotice || writtenAt === undefined || !control) return IDLE;
  const found = await control.list(app).catch(() => undefined);
  return found
    ? { pending: startedBefore(found, writtenAt), running: found.length > 0 }
    : { pending: false, running: undefined };
}

/**
 * Whether editors that read their file only at start (Claude Desktop) still run with an old file: a
 * process of the app that started before Switchboard's last write of the file. Checked when asked
 * (after a write, a restart, a view), and every few seconds while one is pending, so the hint goes
 * away on its own when the person quits or restarts the app; `change` says which editors flipped.
 * No timer runs while nothing is pending.
 */
export class RestartWatch extends EventEmitter<{ change: [EditorId[]] }> {
  readonly #options: RestartWatchOptions;
  readonly #states = new Map<EditorId, RestartState>();
  #running: Promise<void> | undefined;
  #again = false;
  #timer: NodeJS.Timeout | undefined;
  #closed = false;

  constructor(options: RestartWatchOptions) {
    super();
    this.#options = options;
  }

  state(editor: EditorId): RestartState {
    return this.#states.get(editor) ?? IDLE;
  }

  /** Checks every such editor now; concurrent calls share a check (and one more after it). */
  check(): Promise<void> {
    if (this.#running) {
      this.#again = true;
      return this.#running;
    }
    this.#running = (async () => {
      try {
        do {
          this.#again = false;
          await this.#checkOnce();
        } while (this.#again && !this.#closed);
      } finally {
        this.#running = undefined;
      }
    })();
    return this.#running;
  }

  close(): void {
    this.#closed = true;
    clearTimeout(this.#timer);
  }

  async #checkOnce(): Promise<void> {
    const changed: EditorId[] = [];
    for (const adapter of allEditors()) {
      if (!desktopAppOf(adapter) || !adapter.restartNotice) continue;
      const next = await restartState(adapter, this.#options.writtenAt(adapter.id), this.#options.control);
      const before = this.state(adapter.id);
      if (before.pending !== next.pending || before.running !== next.running) changed.push(adapter.id);
      this.#states.set(adapter.id, next);
    }
    if (this.#closed) return;
    clearTimeout(this.#timer);
    if ([...this.#states.values()].some((s) => s.pending)) {
      this.#timer = setTimeout(() => void this.check(), this.#options.intervalMs ?? 5_000);
      this.#timer.unref();
    }
    if (changed.length) this.emit('change', changed);
  }
}
