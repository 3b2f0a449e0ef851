/**
 * switchboard:// links that arrive before the core is up. On macOS a link that launches the app comes
 * as `open-url` before `ready` (and a second instance may pass one on Windows/Linux while the first
 * is still starting): they wait here, then run in order once `ready()` gives the handler. Links are
 * handled one at a time, and a failing one does not stop the next.
 */
export class LinkQueue {
  /** A page could fire links in a loop before the app is up; more than this are dropped. */
  static readonly MAX_PENDING = 20;
  #pending: string[] = [];
  #handler: ((link: string) => Promise<void> | void) | undefined;
  #chain: Promise<void> = Promise.resolve();

  /** Handles the link now if the core is up, else keeps it (false when dropped: too many waiting). */
  push(link: string): boolean {
    if (this.#handler) {
      this.#run(this.#handler, link);
      return true;
    }
    if (this.#pending.length >= LinkQueue.MAX_PENDING) return false;
    this.#pending.push(link);
    return true;
  }

  /** The core is up: handle what waited, in arrival order, and every later link at once. */
  ready(handler: (link: string) => Promise<void> | void): void {
    this.#handler = handler;
    const pending = this.#pending;
    this.#pending = [];
    for (const link of pending) this.#run(handler, link);
  }

  get pending(): number {
    return this.#pending.length;
  }

  /** Resolves once every link handed over so far has been handled. */
  idle(): Promise<void> {
    return this.#chain;
  }

  #run(handler: (link: string) => Promise<void> | void, link: string): void {
    // A handler's failure is its own business (it reports it); the chain carries on.
    this.#chain = this.#chain.then(() => handler(link)).catch(() => undefined);
  }
}
