import { statSync } from 'node:fs';
import { EDITOR_IDS, type EditorId } from '../../../shared/editors.ts';
import type { ToolFilter } from '../../../shared/schema/servers.ts';
import type { EditorSettings } from '../../../shared/schema/state.ts';
import type { HomePaths } from '../home.ts';
import type { ServerEntry } from '../server-entry.ts';
import type { AppStateStore } from '../trust/app-state.ts';
import { splitScope } from './project-scope.ts';

/**
 * Which servers each bridge token may reach — the editor selection enforced at the bridge, not only
 * in the editors' files. An editor's token (named after the editor) reaches a server when the
 * server's `editors` list in servers.json is absent or names that editor, and that editor's sync
 * settings do not exclude it (`sync --editor E --exclude NAME`). Any other token (`switchboard token
 * create NAME`, for a client Switchboard does not write) reaches only servers that no `editors` list
 * limits. Exclusions are read from state.json again when the file changed (any writer: the UI, the
 * CLI, another process), looked at no more than twice a second: this runs on every request.
 */
/** How old the exclusions may be before state.json is looked at again. */
const STALE_MS = 500;

/** What client access uses of the core: the servers' editor limits and the editors' sync settings. */
export interface ClientAccessCore {
  readonly home: Pick<HomePaths, 'stateFile'>;
  readonly state: Pick<AppStateStore, 'editors'>;
  readonly servers: { entries(): ReadonlyMap<string, ServerEntry> };
}

export class ClientAccess {
  readonly #core: ClientAccessCore;
  #excluded: Map<string, ReadonlySet<string>> | undefined;
  /** every editor's settings as last read (a new object each time state.json changed) */
  #settings: Record<string, EditorSettings> | undefined;
  #stamp = '';
  #checkedAt = 0;

  /** which project a server is of (undefined: the person's own), for project routes */
  readonly #projectOf: (server: string) => string | undefined;

  constructor(core: ClientAccessCore, projectOf: (server: string) => string | undefined = () => undefined) {
    this.#core = core;
    this.#projectOf = projectOf;
  }

  allowed(scoped: string, server: string): boolean {
    const entry = this.#core.servers.entries().get(server);
    if (!entry) return true; // unknown servers get "no server named …" from the endpoint instead
    // A project's server only on its project's routes (project-scope.ts).
    const { editor: token, project } = splitScope(scoped);
    const owner = this.#projectOf(server);
    // Its `editors: []` keeps it out of every editor's own settings; on its routes any token may.
    if (owner !== undefined) return owner === project;
    const limited = entry.config.editors;
    if (!isEditor(token)) return limited === undefined;
    if (limited !== undefined && !limited.includes(token)) return false;
    return !this.#exclusions().get(token)?.has(server);
  }

  /**
   * Whether a session may reach the server: as its token on its route may, or, for a project's
   * server on the aggregate /mcp, when the editor's roots lie inside that project (roots-scope.ts).
   */
  reaches(session: { editor: string; workingIn?: ReadonlySet<string> | undefined }, server: string): boolean {
    const owner = session.workingIn?.size ? this.#projectOf(server) : undefined;
    if (owner !== undefined && session.workingIn?.has(owner) === true) return true;
    return this.allowed(session.editor, server);
  }

  /** Why `token` cannot reach `server`, in words that say what to change. */
  refusal(scoped: string, server: string): string {
    const { editor: token } = splitScope(scoped);
    const owner = this.#projectOf(server);
    if (owner !== undefined && splitScope(scoped).project !== owner)
      return `MCP server "${server}" belongs to the project "${owner}": it is offered only on /mcp/@${owner} and /mcp/${server}`;
    const limited = this.#core.servers.entries().get(server)?.config.editors;
    if (!isEditor(token))
      return `MCP server "${server}" is limited to ${limited?.join(', ') ?? 'some editors'} in Switchboard's servers.json, so the token "${token}" cannot use it`;
    if (limited !== undefined && !limited.includes(token))
      return `MCP server "${server}" is not offered to ${token}: its "editors" in Switchboard's servers.json are ${limited.join(', ')}; add ${token} there to use it here`;
    return `MCP server "${server}" is excluded from ${token} in Switchboard's editor settings; include it again in Switchboard to use it here`;
  }

  /**
   * The tools this token's editor gets of the server, on top of the server's own filter (undefined:
   * all it offers). The same object until the editor settings change, so callers can cache by it.
   */
  selection(scoped: string, server: string): ToolFilter | undefined {
    const { editor: token } = splitScope(scoped);
    if (!isEditor(token)) return undefined;
    return this.#editorSettings()[token]?.tools?.[server];
  }

  /** Whether the token's editor uses discovery mode (find_tools and call_tool on /mcp). */
  discovery(scoped: string): boolean {
    const { editor: token } = splitScope(scoped);
    return isEditor(token) && this.#editorSettings()[token]?.discovery === true;
  }

  /** Reads the editor settings again at the next request: this process just changed them. */
  refresh(): void {
    this.#checkedAt = 0;
    this.#stamp = '\0';
  }

  #exclusions(): Map<string, ReadonlySet<string>> {
    const settings = this.#editorSettings();
    if (!this.#excluded) {
      this.#excluded = new Map();
      for (const [editor, s] of Object.entries(settings))
        if (s.exclude.length > 0) this.#excluded.set(editor, new Set(s.exclude));
    }
    return this.#excluded;
  }

  #editorSettings(): Record<string, EditorSettings> {
    const now = Date.now();
    if (now - this.#checkedAt >= STALE_MS) {
      this.#checkedAt = now;
      const stat = statSync(this.#core.home.stateFile, { throwIfNoEntry: false });
      const stamp = stat ? `${stat.mtimeMs}:${stat.size}:${stat.ino}` : '';
      if (stamp !== this.#stamp) {
        this.#stamp = stamp;
        this.#excluded = undefined;
        this.#settings = undefined;
      }
    }
    this.#settings ??= this.#core.state.editors();
    return this.#settings;
  }
}

function isEditor(token: string): token is EditorId {
  return (EDITOR_IDS as readonly string[]).includes(token);
}
