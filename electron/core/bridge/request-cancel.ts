/**
 * The cancellation of one editor request (the editor sent notifications/cancelled, or went away):
 * what an AbortController would do here, without an EventTarget per call. One is made for every
 * request the bridge relays, so it is a plain object with at most a listener or two.
 */
export class RequestCancel {
  /** why it was cancelled; undefined while it is not */
  reason: string | undefined;
  #listeners: ((reason: string) => void)[] | undefined;

  get cancelled(): boolean {
    return this.reason !== undefined;
  }

  cancel(reason: string): void {
    if (this.reason !== undefined) return;
    this.reason = reason;
    const listeners = this.#listeners;
    this.#listeners = undefined;
    if (listeners) for (const listener of listeners) listener(reason);
  }

  /** Calls `listener` once, when it is cancelled; returns what takes the listener back. */
  onCancel(listener: (reason: string) => void): () => void {
    (this.#listeners ??= []).push(listener);
    return () => {
      const at = this.#listeners?.indexOf(listener) ?? -1;
      if (at !== -1) this.#listeners?.splice(at, 1);
    };
  }
}
