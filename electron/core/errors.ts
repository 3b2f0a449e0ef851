/**
 * An error meant for a person: what went wrong, with the context they need (which server, file, line)
 * and what to do about it. Never carries a secret value.
 */
export class UserError extends Error {
  readonly hint: string | undefined;
  constructor(message: string, options: { hint?: string; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'UserError';
    this.hint = options.hint;
  }

  /** message plus hint, as shown in the CLI, logs and the UI */
  get display(): string {
    return this.hint ? `${this.message} — ${this.hint}` : this.message;
  }
}

export function describeError(err: unknown): string {
  if (err instanceof UserError) return err.display;
  if (err instanceof Error) return err.message;
  return String(err);
}

/**
 * An approval whose fingerprint is not the server's current one: the config changed between being
 * shown and being approved (an edit of servers.json, PATH, a retargeted symlink). Nothing is approved.
 */
export class StaleApprovalError extends UserError {
  constructor(name: string) {
    super(`server "${name}" was not approved: its configuration changed since it was shown`, {
      hint: 'review it again and approve what is shown now',
    });
    this.name = 'StaleApprovalError';
  }
}

/**
 * An acceptance of a change to a server's tools that is no longer the change it lists: its tools
 * changed again between being shown and being accepted. Nothing is accepted.
 */
export class StaleToolChangeError extends UserError {
  constructor(name: string) {
    super(`the tools of "${name}" were not accepted: they changed again since they were shown`, {
      hint: 'review the change again and accept what is shown now',
    });
    this.name = 'StaleToolChangeError';
  }
}
