import { realpath } from 'node:fs/promises';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Root } from '@modelcontextprotocol/sdk/types.js';
import type { McpSession } from './mcp-sessions.ts';
import { splitScope } from './project-scope.ts';

/** At most this many roots of one editor are looked at (each is a realpath). */
const MAX_ROOTS = 64;
/** How long an editor's request on /mcp waits for its roots' answer, asked just before. */
const READY_WAIT_MS = 2_000;

/** A project as roots routing needs it: its name and its folder (recorded with symlinks resolved). */
export interface ProjectFolder {
  name: string;
  dir: string;
}

export interface RootsScopeOptions {
  /** the aggregate sessions now */
  sessions: () => Iterable<McpSession>;
  /** the projects now */
  folders: () => readonly ProjectFolder[];
  /** the editor's roots (roots/list; undefined: it gave none) */
  ask: (session: McpSession) => Promise<Root[] | undefined>;
  /** the session's projects changed: it lists again */
  changed: (session: McpSession) => void;
  /** the editor works in the project now (who works in it, `projects`) */
  seen?: ((project: string, editor: string) => void) | undefined;
  /** the folders an editor declared as roots (resolved): the offer to add one as a project */
  roots?: ((editor: string, dirs: readonly string[]) => void) | undefined;
}

/**
 * Which projects a 2025-era editor on the aggregate `/mcp` works in, by the roots it declares
 * (docs/decisions/projects.md): a project's servers are offered to a session whose
 * root lies inside the project's folder. Roots are judged as resolved paths (file: URIs only, `..`
 * and symlinks resolved, compared by path segments), so `/p/../p-other` or a symlink leading out of
 * the folder is not inside it, and a root above the folder (the home) is not inside it either. A
 * 2026-era client has no roots: it uses `/mcp/@<project>`.
 */
export class RootsScope {
  readonly #options: RootsScopeOptions;
  /** each followed session's resolved roots (kept to judge them again when projects change) */
  readonly #dirs = new WeakMap<McpSession, readonly string[]>();
  /** each session's latest ask: an older answer arriving late is not used */
  readonly #asked = new WeakMap<McpSession, number>();
  /** each session's roots being asked and judged now */
  readonly #judging = new WeakMap<McpSession, Promise<void>>();
  #seq = 0;

  constructor(options: RootsScopeOptions) {
    this.#options = options;
  }

  /** Only an unscoped aggregate session of an editor that declares roots is routed by them. */
  static applies(session: McpSession): boolean {
    return (
      session.target === null &&
      splitScope(session.editor).project === undefined &&
      session.capabilities.roots !== undefined &&
      !session.closed
    );
  }

  /** The editor arrived or its roots changed: asks them (again) and judges which projects it works in. */
  follow(session: McpSession): void {
    if (!RootsScope.applies(session)) return;
    const seq = ++this.#seq;
    this.#asked.set(session, seq);
    const judged = this.#options
      .ask(session)
      .then((roots) => (roots ? rootFolders(roots) : []))
      .then(
        (dirs) => {
          // No answer counts as no roots: what it said before is no longer known to hold.
          if (session.closed || this.#asked.get(session) !== seq) return;
          this.#dirs.set(session, dirs);
          if (dirs.length > 0) this.#options.roots?.(splitScope(session.editor).editor, dirs);
          this.#judge(session);
        },
        () => {},
      )
      .finally(() => {
        if (this.#asked.get(session) === seq) this.#judging.delete(session);
      });
    this.#judging.set(session, judged);
  }

  /**
   * While the session's roots are being asked (it just arrived, or said they changed) and there are
   * projects: a moment's wait, so its first list already has the servers of the projects it works in
   * rather than a list_changed right after. Undefined (the usual case): nothing to wait for.
   */
  ready(session: McpSession): Promise<unknown> | undefined {
    const judging = this.#judging.get(session);
    if (!judging || this.#options.folders().length === 0) return undefined;
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<void>((resolve) => (timer = setTimeout(resolve, READY_WAIT_MS)));
    return Promise.race([judging, late]).finally(() => clearTimeout(timer));
  }

  /** The projects changed (added, removed): every followed session is judged again. */
  projectsChanged(): void {
    for (const session of this.#options.sessions()) if (this.#dirs.has(session)) this.#judge(session);
  }

  /** A request of the session: it still works in its projects (who works in each now). */
  touch(session: McpSession): void {
    const seen = this.#options.seen;
    if (!seen || !session.workingIn) return;
    for (const project of session.workingIn) seen(project, splitScope(session.editor).editor);
  }

  #judge(session: McpSession): void {
    const dirs = this.#dirs.get(session) ?? [];
    const now = new Set(
      this.#options
        .folders()
        .filter((p) => dirs.some((d) => within(d, p.dir)))
        .map((p) => p.name),
    );
    const before = session.workingIn ?? new Set<string>();
    if (now.size === before.size && [...now].every((p) => before.has(p))) return;
    session.workingIn = now;
    this.touch(session);
    this.#options.changed(session);
  }
}

/**
 * The folders `roots` name, resolved: file: URIs only (a host other than the local one is refused by
 * fileURLToPath), made absolute without `..`, symlinks followed; a root that does not exist is left out.
 */
export async function rootFolders(roots: readonly Root[]): Promise<string[]> {
  const out = new Set<string>();
  for (const root of roots.slice(0, MAX_ROOTS)) {
    let path: string;
    try {
      path = fileURLToPath(root.uri);
    } catch {
      continue; // not a file: URI, or one of another host
    }
    if (!isAbsolute(path)) continue;
    const real = await realpath(resolve(path)).catch(() => undefined);
    if (real !== undefined) out.add(real);
  }
  return [...out];
}

/** Whether `dir` is `folder` or lies inside it, both resolved, compared by whole path segments. */
export function within(dir: string, folder: string): boolean {
  const rel = relative(folder, dir);
  return rel === '' || (!isAbsolute(rel) && rel.split(sep)[0] !== '..');
}
