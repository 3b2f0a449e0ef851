import { realpathSync } from 'node:fs';
import { basename, isAbsolute, relative } from 'node:path';
import type { Project, ProjectOffer } from '../../../shared/schema/projects.ts';
import { readProjectFiles } from './project-files.ts';

/** At most this many folders are offered at once (the oldest goes first). */
const MAX_OFFERS = 20;

export interface ProjectOffersOptions {
  projects: () => readonly Project[];
  /** the person's home and Switchboard's: a folder holding either is never offered */
  userHome: string;
  switchboardHome: string;
  /** the offers changed (the UI and the tray show them) */
  changed: () => void;
}

/**
 * Folders an editor works in (its roots, resolved) that hold project MCP files with servers and are
 * not yet a project: Switchboard offers to add each ("Folder X has MCP servers in .mcp.json — add it
 * as a project?"), never adds one by itself. A folder the person said no to is not offered again
 * while this serve runs.
 */
export class ProjectOffers {
  readonly #options: ProjectOffersOptions;
  readonly #offers = new Map<string, ProjectOffer>();
  readonly #declined = new Set<string>();
  /** folders looked at already (with or without files): each is read once per serve */
  readonly #looked = new Set<string>();

  constructor(options: ProjectOffersOptions) {
    this.#options = options;
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

  /** The person said no (or added it): it is not offered again while this serve runs. */
  decline(dir: string): boolean {
    this.#declined.add(dir);
    const had = this.#offers.delete(dir);
    if (had) this.#options.changed();
    return had;
  }

  /** Not inside a project already, and not the home or a folder holding it or Switchboard's. */
  #eligible(dir: string): boolean {
    if (this.#options.projects().some((p) => inside(dir, p.dir))) return false;
    const { userHome, switchboardHome } = this.#options;
    return !inside(real(userHome), dir) && !inside(real(switchboardHome), dir);
  }
}

function real(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

function inside(dir: string, folder: string): boolean {
  const rel = relative(folder, dir);
  return rel === '' || (!isAbsolute(rel) && rel.split(/[\\/]/)[0] !== '..');
}
