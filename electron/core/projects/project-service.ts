import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { writeFileAtomic } from '../fs/atomic-write.ts';
import type { ApprovalOrigin } from '../../../shared/api.ts';
import type { Project, ProjectInfo } from '../../../shared/schema/projects.ts';
import type { ServerConfig } from '../../../shared/schema/servers.ts';
import { FolderWatch } from './folder-watch.ts';
import { projectFilePaths, readProjectFiles } from './project-files.ts';
import { projectServers, requestSecretName, scriptPaths, type ProjectServer } from './project-servers.ts';
import { projectsFilePath, readProjects } from './projects-file.ts';

/** How recent an editor's request on a project's route must be for it to count as working in it. */
const ACTIVE_MS = 10 * 60_000;

/** Where a project server's config came from, and the values its file asks for not given yet: shown on its approval. */
export type ProjectOrigin = ApprovalOrigin;

/**
 * The projects Switchboard knows (projects.json) and the servers their committed MCP files name,
 * read again when a project file or projects.json changes. The core takes its servers beside
 * servers.json's; the bridge asks which project a server belongs to.
 */
export class ProjectService {
  readonly file: string;
  #projects: Project[] = [];
  #servers: ProjectServer[] = [];
  /** the servers offered (not refused), by name: the bridge asks on every request */
  #offered = new Map<string, ProjectServer>();
  #files = new Map<string, ReturnType<typeof readProjectFiles>>();
  #problem: string | undefined;
  /** what the last read found, to tell whether the next one differs */
  #read: string | undefined;
  #watch: FolderWatch | undefined;
  /** the files followed (projects.json, the projects' MCP files and scripts) and the folders above them */
  #wanted = new Set<string>();
  #places = new Set<string>();
  #timer: NodeJS.Timeout | undefined;
  readonly #onChange: () => void;
  /** per project, each editor's last request on its routes (this process; run/ for the CLI) */
  readonly #seen = new Map<string, Map<string, number>>();
  #seenTimer: NodeJS.Timeout | undefined;
  readonly #seenFile: string;

  constructor(homeRoot: string, onChange: () => void = () => {}) {
    this.file = projectsFilePath(homeRoot);
    this.#onChange = onChange;
    this.#seenFile = join(homeRoot, 'run', 'project-editors.json');
    this.scan();
  }

  /**
   * Reads projects.json and every project's files again; true when anything differs. Unchanged, the
   * objects stay the same ones: the core tells a project's server from a person's own of the same
   * name by its config object (projectOf), so new ones need a reload, which a read changing nothing
   * does not ask for.
   */
  scan(): boolean {
    let projects = this.#projects;
    let problem: string | undefined;
    try {
      projects = readProjects(this.file);
    } catch (err) {
      // The last good projects stay in force (as an invalid servers.json keeps its servers).
      problem = err instanceof Error ? err.message : String(err);
    }
    const files = new Map(projects.map((p) => [p.name, readProjectFiles(p.dir)]));
    const servers = projects.flatMap((p) => projectServers(p, files.get(p.name) ?? []));
    const read = JSON.stringify([problem, projects, [...files], servers]);
    if (read === this.#read) return false;
    this.#read = read;
    this.#projects = projects;
    this.#problem = problem;
    this.#files = files;
    this.#servers = servers;
    this.#offered = new Map(servers.filter((s) => s.config).map((s) => [s.info.name, s]));
    // A project added or removed here (the UI) or by the CLI: its folder is followed or no more.
    if (this.#watch) void this.#follow();
    return true;
  }

  projects(): readonly Project[] {
    return this.#projects;
  }

  problem(): string | undefined {
    return this.#problem;
  }

  /** The servers Switchboard may offer for approval (refused ones are not among them). */
  servers(): Map<string, ServerConfig> {
    const out = new Map<string, ServerConfig>();
    for (const s of this.#servers) if (s.config) out.set(s.info.name, s.config);
    return out;
  }

  /** `config`: as for projectOf (a person's own server of that name has no project origin). */
  originOf(name: string, config?: object): ProjectOrigin | undefined {
    const s = this.#offered.get(name);
    if (config !== undefined && config !== s?.config) return undefined;
    if (!s) return undefined;
    const given = this.#projects.find((p) => p.name === s.project)?.given[name] ?? [];
    return {
      project: s.project,
      dir: s.dir,
      file: s.info.file,
      digest: s.info.digest,
      needs: s.info.requests
        .filter((request) => !given.includes(request))
        .map((request) => ({ request, secret: requestSecretName(name, request) })),
    };
  }

  /**
   * The project a server belongs to (undefined: one of the person's own). `config`: the config the
   * core runs under that name, when known: a person's own server of the same name wins in the core,
   * and is then theirs, not the project's.
   */
  projectOf(name: string, config?: object): string | undefined {
    const s = this.#offered.get(name);
    return s && (config === undefined || config === s.config) ? s.project : undefined;
  }

  /**
   * An editor's request on a project's route (the bridge tells, on every request: a map update).
   * Written for the CLI at most once a second.
   */
  seen(project: string, editor: string): void {
    let editors = this.#seen.get(project);
    if (!editors) this.#seen.set(project, (editors = new Map()));
    editors.set(editor, Date.now());
    this.#seenTimer ??= setTimeout(() => {
      this.#seenTimer = undefined;
      try {
        const out = Object.fromEntries([...this.#seen].map(([p, e]) => [p, Object.fromEntries(e)]));
        writeFileAtomic(this.#seenFile, JSON.stringify(out), { mode: 0o600 });
      } catch {
        // run/ gone (serve stopping): nobody asks any more
      }
    }, 1000);
  }

  /** Editors that used a project's routes in the last ten minutes (from the running serve's record). */
  #activeEditors(project: string): string[] {
    let record: Record<string, Record<string, number>>;
    try {
      record = JSON.parse(readFileSync(this.#seenFile, 'utf8')) as Record<string, Record<string, number>>;
    } catch {
      return [];
    }
    const since = Date.now() - ACTIVE_MS;
    return Object.entries(record[project] ?? {})
      .filter(([, at]) => typeof at === 'number' && at >= since)
      .map(([editor]) => editor)
      .sort();
  }

  /** What `switchboard projects` and `status --json` show. */
  infos(): ProjectInfo[] {
    return this.#projects.map((p) => ({
      name: p.name,
      dir: p.dir,
      files: (this.#files.get(p.name) ?? []).map((f) => ({
        file: f.file,
        digest: f.digest,
        ...(f.problem === undefined ? {} : { problem: f.problem }),
      })),
      servers: this.#servers.filter((s) => s.project === p.name).map((s) => s.info),
      endpoint: `/mcp/@${p.name}`,
      editors: [],
      activeEditors: this.#activeEditors(p.name),
    }));
  }

  /**
   * Follows projects.json and every project's files (created, changed, replaced, removed): reads
   * them again and calls onChange, after which the core reloads (a changed entry is pending again).
   * A project added (here or by the CLI) is followed from then on; each folder is read once more
   * when its watcher is ready, so a change made before then (right after serve starts or the
   * project is added) is not lost.
   */
  async watch(): Promise<void> {
    if (this.#watch) return;
    this.#watch = new FolderWatch({
      wanted: (path) => this.#wanted.has(path) || this.#places.has(path),
      changed: (path) => {
        if (this.#wanted.has(path)) this.#soon();
      },
      ready: () => this.#soon(),
    });
    await this.#follow();
  }

  /** The folders to watch now (projects.json's and each project's), and the files in them that matter. */
  #follow(): Promise<void> {
    this.#wanted = new Set([
      this.file,
      ...this.#projects.flatMap((p) => projectFilePaths(p.dir)),
      ...this.#servers.flatMap((s) => scriptPaths(s.dir, s.config)),
    ]);
    this.#places = new Set([...this.#wanted].flatMap((f) => ancestors(f)));
    return (
      this.#watch?.follow([dirname(this.file), ...this.#projects.map((p) => p.dir)]) ?? Promise.resolve()
    );
  }

  /** Reads everything again a moment later (a burst of events is one read); onChange when it differs. */
  #soon(): void {
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => {
      if (this.scan()) this.#onChange();
    }, 50);
  }

  async close(): Promise<void> {
    clearTimeout(this.#timer);
    clearTimeout(this.#seenTimer);
    await this.#watch?.close();
    this.#watch = undefined;
  }
}

/** A file's folder and every folder above it (the watcher must not skip them on its way down). */
function ancestors(file: string): string[] {
  const out: string[] = [];
  for (let dir = dirname(file); !out.includes(dir); dir = dirname(dir)) out.push(dir);
  return out;
}
