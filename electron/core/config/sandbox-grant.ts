import { existsSync, mkdirSync } from 'node:fs';
import { posix } from 'node:path';
import type { SandboxGrant } from '../../../shared/sandbox-grant.ts';
import { UserError } from '../errors.ts';
import { readServerValue, setServerValue } from './edit.ts';

export interface GrantResult {
  /** the path as written into servers.json (under the home with "~") */
  written: string;
  /** false when servers.json allowed it already: nothing was changed */
  changed: boolean;
}

/**
 * Lets a server read (or read and write) one more path: adds it to its `sandbox.read` or
 * `sandbox.write` in servers.json, comments and layout kept (edit.ts). A changed sandbox is a
 * changed config, so the server waits for approval again, with the change shown; nothing more is
 * allowed until then. A folder to write that does not exist yet is made (private to this user), as
 * the sandbox can only let a server into a folder that is there.
 */
export function grantSandboxPath(
  serversFile: string,
  server: string,
  grant: SandboxGrant,
  home: string | undefined,
): GrantResult {
  const path = absolute(grant.path, home);
  const config = readServerValue(serversFile, server);
  if (config === undefined) throw new UserError(`no server named "${server}" in ${serversFile}`);
  if (typeof config !== 'object' || config === null || !('command' in config))
    throw new UserError(`"${server}" is not a local server: it runs in no sandbox`);
  const setting = (config as { sandbox?: unknown }).sandbox;
  if (setting === false)
    throw new UserError(`"${server}" runs unsandboxed ("sandbox": false): it may use ${path} already`);
  const list = readServerValue(serversFile, server, ['sandbox', grant.access]);
  const current = Array.isArray(list) ? list.filter((p): p is string => typeof p === 'string') : [];
  const written = home && path.startsWith(`${home}/`) ? `~${path.slice(home.length)}` : path;
  const expand = (p: string) => absolute(p, home);
  if (current.some((p) => expand(p) === path)) return { written, changed: false };
  if (grant.access === 'write' && !existsSync(path)) mkdirSync(path, { recursive: true, mode: 0o700 });
  setServerValue(serversFile, server, ['sandbox', grant.access], [...current, written], {
    ifCurrentValue: list,
  });
  return { written, changed: true };
}

function absolute(path: string, home: string | undefined): string {
  if ((path === '~' || path.startsWith('~/')) && home) return posix.join(home, path.slice(1));
  if (!path.startsWith('/'))
    throw new UserError(`"${path}" is not an absolute path (or one starting with ~/)`);
  return posix.normalize(path);
}
