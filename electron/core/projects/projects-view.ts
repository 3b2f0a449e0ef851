import type { ProjectOffer, ProjectsView } from '../../../shared/schema/projects.ts';
import type { HomePaths } from '../home.ts';
import { claudeProjectDirs } from './claude-code-projects.ts';
import type { ProjectService } from './project-service.ts';

export interface ProjectsViewInput {
  service: Pick<ProjectService, 'infos' | 'projects'>;
  home: HomePaths;
  /** each server's state as the person sees it (status) */
  servers: readonly { name: string; state: string }[];
  /** the folders offered as projects now (a running serve's; none without one) */
  offers: readonly ProjectOffer[];
}

/**
 * The one view of the projects that `switchboard projects`, `status` and the UI's section show: each
 * project with its files and digests, its servers' states ("refused" with why when its entry cannot
 * run), the editors set up for it and those working in it now; and the folders offered.
 */
export function projectsView(input: ProjectsViewInput): ProjectsView {
  const states = new Map(input.servers.map((s) => [s.name, s.state]));
  const written = claudeProjectDirs(input.home);
  const given = new Map(input.service.projects().map((p) => [p.name, p.given]));
  const projects = input.service.infos().map((info) => ({
    ...info,
    editors: written.has(info.dir) ? ['claude-code'] : [],
    states: Object.fromEntries(
      info.servers.map((s) => [s.name, s.problem ? 'refused' : (states.get(s.name) ?? 'unknown')]),
    ),
    needs: Object.fromEntries(
      info.servers
        .map((s) => [s.name, s.requests.filter((r) => !given.get(info.name)?.[s.name]?.includes(r))] as const)
        .filter(([, missing]) => missing.length > 0),
    ),
  }));
  return { projects, offers: [...input.offers] };
}
