import type { ApprovalPreview } from '../../shared/api.ts';
import type { StatusReport } from '../../shared/status.ts';

/** After a failed resolution (offline), the tray asks again at most this often. */
export const PREVIEW_RETRY_MS = 60_000;

/** What the tray knows of a waiting server's approval, for the config its status has now. */
export type KnownPreview =
  { kind: 'pending' } | { kind: 'ready'; preview: ApprovalPreview } | { kind: 'failed'; message: string };

interface Entry {
  /** the status fingerprint (servers.json's config) this is about */
  fingerprint: string;
  known: KnownPreview;
  /** when it failed, for the retry */
  at: number;
}

/**
 * The approval previews the tray menu shows for servers waiting for approval (core.preview: the exact
 * command, and for a package run the package resolved at its registry). The tray's Approve approves a
 * preview it shows; a server whose preview is not in (being resolved, or failed) gets "Approve…",
 * which opens its approval in the window instead. Each is bound to the config it was asked for (the
 * status fingerprint): another config asks again.
 */
export class ApprovalPreviews {
  readonly #entries = new Map<string, Entry>();

  /**
   * The servers to ask core.preview about now (each marked as being asked): waiting for approval, with
   * nothing asked for their current config yet, or a failure older than PREVIEW_RETRY_MS. Servers no
   * longer waiting are forgotten.
   */
  wanted(report: StatusReport, now: number): { name: string; fingerprint: string }[] {
    const waiting = report.servers.filter((s) => s.state === 'pending-approval');
    const names = new Set(waiting.map((s) => s.name));
    for (const name of this.#entries.keys()) if (!names.has(name)) this.#entries.delete(name);
    const ask: { name: string; fingerprint: string }[] = [];
    for (const s of waiting) {
      const entry = this.#entries.get(s.name);
      const stale =
        !entry ||
        entry.fingerprint !== s.fingerprint ||
        (entry.known.kind === 'failed' && now - entry.at >= PREVIEW_RETRY_MS);
      if (!stale) continue;
      this.#entries.set(s.name, { fingerprint: s.fingerprint, known: { kind: 'pending' }, at: now });
      ask.push({ name: s.name, fingerprint: s.fingerprint });
    }
    return ask;
  }

  /** core.preview answered, for the config `fingerprint` was asked about. */
  resolved(name: string, fingerprint: string, preview: ApprovalPreview): void {
    if (this.#entries.get(name)?.fingerprint !== fingerprint) return;
    this.#entries.set(name, { fingerprint, known: { kind: 'ready', preview }, at: 0 });
  }

  failed(name: string, fingerprint: string, message: string, now: number): void {
    if (this.#entries.get(name)?.fingerprint !== fingerprint) return;
    this.#entries.set(name, { fingerprint, known: { kind: 'failed', message }, at: now });
  }

  /** What is known for the server's config `fingerprint` (its status now); undefined: nothing. */
  get(name: string, fingerprint: string): KnownPreview | undefined {
    const entry = this.#entries.get(name);
    return entry?.fingerprint === fingerprint ? entry.known : undefined;
  }
}
