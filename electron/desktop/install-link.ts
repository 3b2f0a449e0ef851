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

/**
 * Where a `switchboard://install?registry=NAME[&version=V]` link opens: that server's page in the
 * Catalog (`#/catalog/NAME[/V]`). The link writes nothing: installing there shows how it runs, asks
 * for its secrets and arguments, and adds it pending approval like any catalog install.
 */
export function catalogTarget(link: { registry: string; version: string | undefined }): {
  view: 'catalog';
  segments: string[];
} {
  return { view: 'catalog', segments: link.version ? [link.registry, link.version] : [link.registry] };
}
