import type { z } from 'zod';
import { ProjectRoutes, type ProjectsUiApi } from '../../../shared/projects-api.ts';
import * as p from '../../../shared/schema/projects.ts';

export type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

/**
 * The Projects section's calls (issue 35) on the control API, apart from the rest of the client
 * (http.ts's ControlApiClient, which sends them and checks each answer with its schema).
 */
export abstract class ProjectsClient implements ProjectsUiApi {
  protected abstract send<T>(
    method: Method,
    path: string,
    schema: z.ZodType<T>,
    payload?: unknown,
  ): Promise<T>;

  projects(): Promise<p.ProjectsView> {
    return this.send('GET', ProjectRoutes.projects, p.ProjectsViewSchema);
  }

  async addProject(dir: string, name?: string): Promise<void> {
    await this.send('POST', ProjectRoutes.projects, p.ProjectAddedSchema, name ? { dir, name } : { dir });
  }

  async removeProject(name: string): Promise<void> {
    await this.send('DELETE', ProjectRoutes.project(name), p.ProjectRemovedSchema);
  }

  async giveProjectRequest(server: string, request: string, value: string): Promise<void> {
    await this.send('POST', ProjectRoutes.give, p.ProjectGivenSchema, { server, request, value });
  }

  async declineProjectOffer(dir: string): Promise<void> {
    await this.send('POST', ProjectRoutes.offerDecline, p.ProjectOfferDeclinedSchema, { dir });
  }
}
