import type { ProjectsView } from './schema/projects.ts';

const seg = (s: string) => encodeURIComponent(s);

/** The control API's projects routes (issue 35; electron/core/bridge/project-routes.ts). */
export const ProjectRoutes = {
  /** GET: each project and the folders offered (ProjectsView); POST {dir, name?}: add one */
  projects: '/api/projects',
  /** DELETE: remove a project (its servers stop, their approvals are forgotten) */
  project: (name: string) => `/api/projects/${seg(name)}`,
  /** POST {server, request, value}: a value of its own for a project server's request */
  give: '/api/projects/give',
  /** POST {dir}: the person does not want that folder offered as a project again */
  offerDecline: '/api/projects/offers/decline',
} as const;

/** The UI's projects section, as UiApi offers it. */
export interface ProjectsUiApi {
  /** each project (files, digests, servers' states, editors in it) and the folders offered */
  projects(): Promise<ProjectsView>;
  /** as `switchboard projects add DIR [--name NAME]` */
  addProject(dir: string, name?: string): Promise<void>;
  /** as `switchboard projects rm NAME`: its servers stop, their approvals are forgotten */
  removeProject(name: string): Promise<void>;
  /** as `projects give SERVER REQUEST`: the value kept as that server's own keychain secret */
  giveProjectRequest(server: string, request: string, value: string): Promise<void>;
  /** the folder is not offered as a project again (kept in project-offers.json, across restarts) */
  declineProjectOffer(dir: string): Promise<void>;
}
