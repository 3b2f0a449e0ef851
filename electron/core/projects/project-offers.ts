import { readFileSync } from 'node:fs';
import { basename, isAbsolute, join, relative } from 'node:path';
import { ProjectOffersFileSchema, type Project, type ProjectOffer } from '../../../shared/schema/projects.ts';
import { writeFileAtomic } from '../fs/atomic-write.ts';
import { realOrAsGiven } from '../fs/real-path.ts';
import { readProjectFiles } from './project-files.ts';

/** At most this many folders are offered at once (the oldest goes first). */
const MAX_OFFERS = 20;
/** At most this many declined folders are remembered (the oldest is forgotten first). */
const MAX_DECLINED = 500;

/** <home>/project-offers.json: the folders declined, kept across restarts. */
export function declinedOffersPath(homeRoot: string): string {
  return join(homeRoot, 'project-offers.json');
}

export interface ProjectOffersOptions {
  projects: () => readonly Project[];
  /** the person's home and Switchboard's: a folder holding either is never offered */
  userHome: string;
  switchboardHome: string;
  /** where the declined folders are kept (declinedOffersPath) */
  file: string;
  /** the offers changed (the UI and the tray show them) */
  changed: () => void;
}

/**
 * Folders an editor works in (its roots, resolved) that hold project MCP files with servers and are
 * not yet a project: Switchboard offers to add each ("Folder X has MCP servers in .mcp.json — add it
 * as a project?"), never adds one by itself. A folder the person said no to is not offered again,
 * also after a restart (project-offers.json).
 */
export class ProjectOffers {
  readonly #options: ProjectOffersOptions;
  readonly #offers = new Map<string, ProjectOffer>();
  readonly #declined: Set<string>;
  /** folders looked at already (with or without files): each is read once per serve */
  readonly #looked = new Set<string>();

  constructor(options: ProjectOffersOptions) {
    this.#options = options;
    this.#declined = new Set(readDeclined(options.file));
  }

  /** An editor's roots (absolute, resolved): each folder not looked at yet is read once. */
  note(editor: string, dirs: readonly string[]): void {
    let changed = false;
    for (const dir of dirs) {
      const offer = this.#offers.get(dir);
      if (offer) {
        if (!offer.editors.includes(editor)) {
          offer.editors = [...offer.editors, editor].sort();
          changed = true;
        }
        continue;
      }
      if (this.#looked.has(dir) || this.#declined.has(dir) || !this.#eligible(dir)) continue;
      this.#looked.add(dir);
      const files = readProjectFiles(dir).filter((f) => f.entries.some((e) => e.server !== undefined));
      if (files.length === 0) continue;
      this.#offers.set(dir, {
        dir,
        name: basename(dir),
        files: files.map((f) => relative(dir, f.file)),
        editors: [editor],
        at: Date.now(),
      });
      if (this.#offers.size > MAX_OFFERS) this.#offers.delete(this.#offers.keys().next().value ?? '');
      changed = true;
    }
    if (changed) this.#options.changed();
  }

  /** The folders offered now (a folder that became a project meanwhile is not among them). */
  list(): ProjectOffer[] {
    return [...this.#offers.values()].filter((o) => this.#eligible(o.dir));
  }

  /** The person said no: it is not offered again, also after a restart. */
  decline(dir: string): boolean {
    if (!this.#declined.has(dir)) {
      this.#declined.add(dir);
      const kept = [...this.#declined].slice(-MAX_DECLINED);
      writeFileAtomic(this.#options.file, `${JSON.stringify({ version: 1, declined: kept }, null, 2)}\n`, {
        mode: 0o600,
      });
    }
    return this.drop(dir);
  }

  /** The folder was added as a project: its offer goes (removed later, it may be offered again). */
  drop(dir: string): boolean {
    this.#looked.delete(dir);
    const had = this.#offers.delete(dir);
    if (had) this.#options.changed();
    return had;
  }

  /** Not inside a project already, and not the home or a folder holding it or Switchboard's. */
  #eligible(dir: string): boolean {
    if (this.#options.projects().some((p) => inside(dir, p.dir))) return false;
    const { userHome, switchboardHome } = this.#options;
    return !inside(realOrAsGiven(userHome), dir) && !inside(realOrAsGiven(switchboardHome), dir);
  }
}

/**
 * The folders declined before. A file Switchboard cannot read counts as none declined (they are
 * offered again, nothing runs by it), and is rewritten at the next "Not now".
 */
function readDeclined(file: string): string[] {
  try {
    const parsed = ProjectOffersFileSchema.safeParse(JSON.parse(readFileSync(file, 'utf8')));
    return parsed.success ? parsed.data.declined : [];
  } catch {
    return [];
  }
}

function inside(dir: string, folder: string): boolean {
  const rel = relative(folder, dir);
  return rel === '' || (!isAbsolute(rel) && rel.split(/[\\/]/)[0] !== '..');
}
