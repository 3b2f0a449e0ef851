import type { Project, ProjectGiven, ProjectsView } from '../../../shared/schema/projects.ts';
import type { StatusReport } from '../../../shared/status.ts';
import type { HomePaths } from '../home.ts';
import { declinedOffersPath, ProjectOffers } from './project-offers.ts';
import type { ProjectOrigin, ProjectService } from './project-service.ts';
import { giveValue, valueSecretsOf } from './project-give.ts';
import { requestSecretName } from './project-servers.ts';
import { addProject, removeProject } from './projects-file.ts';
import { projectsView } from './projects-view.ts';

export interface ProjectDeskOptions {
  service: Pick<ProjectService, 'file' | 'scan' | 'projects' | 'originOf' | 'infos'>;
  home: HomePaths;
  /** the person's home folder (a project may not hold it) */
  userHome: string;
  /** each server's state as the person sees it */
  report: () => Pick<StatusReport, 'servers'>;
  /** a value the person gives a project server's request, kept as its own keychain secret */
  setSecret: (name: string, value: string) => Promise<void>;
  /** the keychain secrets the person gave a removed project's servers go with it */
  deleteSecret: (name: string) => Promise<void>;
  /** projects.json changed here: read again and the core reloads (the watcher would, a moment later) */
  reload: () => void;
  /** the projects or the offers changed: the UI and the tray show them again */
  changed: () => void;
}

/**
 * What a running serve's UI does with projects (the same steps as `switchboard projects`): shows
 * each with its files, digests, servers' states and the editors working in it, adds and removes one,
 * and holds the offers to add a folder an editor works in (project-offers.ts).
 */
export class ProjectDesk {
  readonly offers: ProjectOffers;
  readonly #options: ProjectDeskOptions;

  constructor(options: ProjectDeskOptions) {
    this.#options = options;
    this.offers = new ProjectOffers({
      projects: () => options.service.projects(),
      userHome: options.userHome,
      switchboardHome: options.home.root,
      file: declinedOffersPath(options.home.root),
      changed: options.changed,
    });
  }

  view(): ProjectsView {
    const { service, home, report } = this.#options;
    return projectsView({ service, home, servers: report().servers, offers: this.offers.list() });
  }

  /** Where a project server comes from (a name servers.json does not hold). */
  originOf(name: string): ProjectOrigin | undefined {
    return this.#options.service.originOf(name);
  }

  async add(dir: string, name?: string): Promise<Project> {
    const { service, home, userHome } = this.#options;
    const project = addProject(service.file, dir, {
      ...(name === undefined || name === '' ? {} : { name }),
      now: Date.now(),
      userHome,
      switchboardHome: home.root,
    });
    this.offers.drop(project.dir);
    this.#reread();
    // Its servers start with no values (none of them is approved yet, so none started meanwhile).
    for (const secret of valueSecretsOf(service, project.name))
      await this.#options.deleteSecret(secret).catch(() => {});
    return project;
  }

  async remove(target: string): Promise<Project | undefined> {
    const gone = removeProject(this.#options.service.file, target);
    if (!gone) return undefined;
    for (const [server, requests] of Object.entries(gone.given))
      for (const request of requests)
        await this.#options.deleteSecret(requestSecretName(server, request)).catch(() => {});
    this.#reread();
    return gone;
  }

  /** As `projects give`: the value is kept in the keychain, never sent back; an approved server waiting for it starts. */
  async give(server: string, request: string, value: string): Promise<ProjectGiven> {
    const { service, setSecret } = this.#options;
    const given = await giveValue({ service, server, request, value, setSecret });
    this.#reread();
    return given;
  }

  #reread(): void {
    this.#options.service.scan();
    this.#options.reload();
    this.#options.changed();
  }
}
