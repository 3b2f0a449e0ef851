import { PROJECT_NAME_PATTERN } from '../../../shared/schema/projects.ts';

/**
 * A project's route: `/mcp/@<project>` is the aggregate with that project's servers beside the
 * person's own (docs/decisions/projects.md). The request's editor becomes
 * `<editor>@<project>` from there on: sessions, activity and access all carry the scope, so a
 * session opened on one route is never reused on another, and no other route offers the project's
 * servers. Token names never hold "@", so the split is unambiguous.
 */
export function scopedRoute(
  path: string,
  editor: string,
  projectOf: (server: string) => string | undefined,
): { path: string; editor: string; project?: string } {
  const rest = path.startsWith('/mcp/@') ? path.slice('/mcp/@'.length).replace(/\/$/, '') : undefined;
  if (rest !== undefined) {
    // An unknown name is an empty project: the person's own servers (nothing of another's).
    if (!PROJECT_NAME_PATTERN.test(rest)) return { path: '/mcp/@', editor };
    return { path: '/mcp', editor: `${editor}@${rest}`, project: rest };
  }
  // A project server's own endpoint, /mcp/<project>--<server>: within that project's scope.
  const target = path.startsWith('/mcp/') ? path.slice('/mcp/'.length) : '';
  const project = target === '' ? undefined : projectOf(target);
  return project === undefined ? { path, editor } : { path, editor: `${editor}@${project}`, project };
}

/** `claude-code@acme` → the token's editor and the project whose route it came by. */
export function splitScope(token: string): { editor: string; project: string | undefined } {
  const at = token.indexOf('@');
  return at < 0
    ? { editor: token, project: undefined }
    : { editor: token.slice(0, at), project: token.slice(at + 1) };
}
