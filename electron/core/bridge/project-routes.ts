import type { IncomingMessage } from 'node:http';
import {
  ProjectAddRequestSchema,
  ProjectGiveRequestSchema,
  type ProjectGiven,
  ProjectOfferDeclineSchema,
  type Project,
  type ProjectsView,
} from '../../../shared/schema/projects.ts';
import { ProjectRoutes } from '../../../shared/projects-api.ts';
import type { ProjectOrigin } from '../projects/project-service.ts';
import { decodePathSegment, HttpError, readJsonAs } from './http-util.ts';

/** What the project routes use: a running serve's projects (projects/project-desk.ts). */
export interface ProjectRoutesDesk {
  view(): ProjectsView;
  add(dir: string, name?: string): Promise<Project>;
  remove(target: string): Promise<Project | undefined>;
  give(server: string, request: string, value: string): Promise<ProjectGiven>;
  readonly offers: { decline(dir: string): boolean };
  /** where a project server comes from (undefined: no project's) */
  originOf(name: string): Pick<ProjectOrigin, 'project' | 'file'> | undefined;
}

/**
 * GET /api/projects (each project: folder, files and digests, servers' states, editors working in
 * it; and the folders offered), POST /api/projects {dir, name?} (as `switchboard projects add`),
 * DELETE /api/projects/<name> (as `projects rm`: its servers stop, their approvals are forgotten),
 * POST /api/projects/offers/decline {dir}. `handle` answers undefined for what it does not own.
 */
export function createProjectRoutes(desk: () => ProjectRoutesDesk | undefined) {
  async function handle(req: IncomingMessage, path: string): Promise<object | undefined> {
    if (!path.startsWith(ProjectRoutes.projects)) return undefined;
    const projects = desk();
    if (!projects) throw new HttpError(404, 'projects are not followed by this process');
    const method = req.method ?? 'GET';
    if (path === ProjectRoutes.projects) {
      if (method === 'GET') return projects.view();
      if (method === 'POST') {
        const { dir, name } = await readJsonAs(req, ProjectAddRequestSchema);
        return { project: await projects.add(dir, name) };
      }
      return undefined;
    }
    if (path === ProjectRoutes.give && method === 'POST') {
      const { server, request, value } = await readJsonAs(req, ProjectGiveRequestSchema);
      return await projects.give(server, request, value);
    }
    if (path === ProjectRoutes.offerDecline && method === 'POST') {
      const { dir } = await readJsonAs(req, ProjectOfferDeclineSchema);
      return { declined: projects.offers.decline(dir) };
    }
    const one = /^\/api\/projects\/([^/]+)$/.exec(path);
    if (!one || method !== 'DELETE') return undefined;
    const target = decodePathSegment(one[1] ?? '');
    const gone = await projects.remove(target);
    if (!gone) throw new HttpError(404, `no project "${target}"`);
    return { removed: gone };
  }
  return { handle };
}
