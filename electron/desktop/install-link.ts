import type { ServerConfigInput } from '../../shared/schema/servers.ts';

export interface InstallTarget {
  /** true when servers.json already has a server of that name */
  exists(name: string): boolean;
  /** adds the server to servers.json (pending approval: a link can never approve itself) */
  add(name: string, config: ServerConfigInput): void;
  /** remembers that the server came from an install link (shown on its approval) */
  noteSource(name: string): void;
}

export type InstallOutcome = { ok: true; server: string; view: 'approvals' } | { ok: false; message: string };

/**
 * Adds the server a `switchboard://install` link describes, never over an existing one: a web page
 * must not be able to replace the person's `github` entry with its own command. Refusing (rather than
 * adding under a free name such as `github-2`) keeps the names in servers.json the person's own and
 * the approval unambiguous; the message says how to go on.
 */
export function installFromLink(
  link: { name: string; config: ServerConfigInput },
  target: InstallTarget,
): InstallOutcome {
  const { name, config } = link;
  if (target.exists(name)) {
    return {
      ok: false,
      message:
        `Switchboard did not add "${name}": a server named "${name}" already exists — remove it ` +
        `or rename the link's server.`,
    };
  }
  // Noted first: the core may reload servers.json as soon as the file changes.
  target.noteSource(name);
  target.add(name, config);
  return { ok: true, server: name, view: 'approvals' };
}
