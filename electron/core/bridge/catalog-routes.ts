import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  CatalogInstallRequestSchema,
  CatalogRegistryPatchSchema,
  CatalogRoutes,
  CatalogSearchRequestSchema,
  CatalogServerRequestSchema,
} from '../../../shared/catalog.ts';
import { CatalogInstallError, type Catalog } from '../catalog/catalog.ts';
import { RegistryError } from '../catalog/registry-client.ts';
import type { ServerSource } from '../../../shared/schema/state.ts';
import { describeError, UserError } from '../errors.ts';
import { readJsonAs, sendJson } from './http-util.ts';
import { applyServersEdit, type ServersEditCore } from './servers-edit.ts';

/** What the catalog routes use of the core: note where an installed server came from, and load it. */
export interface CatalogRoutesCore extends ServersEditCore {
  readonly servers: ServersEditCore['servers'] & { noteSource(name: string, source: ServerSource): void };
}

/**
 * /api/catalog/…: search the MCP Registry, a server's details, install (or a dry run of it) and the
 * registry address. Requests that carry parameters are POSTs with a JSON body (registry names have a
 * slash, which the desktop window's IPC does not pass in a path). `handle` returns false for paths it
 * does not own.
 */
export function createCatalogRoutes(core: CatalogRoutesCore, catalog: Catalog) {
  async function handle(req: IncomingMessage, res: ServerResponse, path: string): Promise<boolean> {
    if (!path.startsWith('/api/catalog/')) return false;
    const method = req.method ?? 'GET';
    try {
      if (path === CatalogRoutes.search && method === 'POST')
        return done(res, await catalog.search(await readJsonAs(req, CatalogSearchRequestSchema)));
      if (path === CatalogRoutes.server && method === 'POST')
        return done(res, await catalog.detail(await readJsonAs(req, CatalogServerRequestSchema)));
      if (path === CatalogRoutes.install && method === 'POST') {
        const request = await readJsonAs(req, CatalogInstallRequestSchema);
        const result = await catalog.install(request, (name) => core.servers.noteSource(name, 'catalog'));
        if (result.installed) applyServersEdit(core);
        return done(res, result);
      }
      if (path === CatalogRoutes.registry && method === 'GET') return done(res, catalog.registry());
      if (path === CatalogRoutes.registry && method === 'PUT') {
        const { url } = await readJsonAs(req, CatalogRegistryPatchSchema);
        return done(res, catalog.setRegistry(url));
      }
      return false;
    } catch (err) {
      if (err instanceof CatalogInstallError) {
        sendJson(res, 400, {
          error: describeError(err),
          issues: [
            ...err.plan.issues.map((i) => ({ path: [i.field], message: i.message })),
            ...err.plan.problems.map((message) => ({ path: [], message })),
          ],
        });
        return true;
      }
      // The registry's trouble is not the request's: 502 (or 404 for a server it does not have).
      if (err instanceof RegistryError) {
        sendJson(res, err.notFound ? 404 : 502, { error: describeError(err) });
        return true;
      }
      if (err instanceof UserError) {
        sendJson(res, 400, { error: describeError(err) });
        return true;
      }
      throw err;
    }
  }

  function done(res: ServerResponse, payload: unknown): true {
    sendJson(res, 200, payload);
    return true;
  }

  return { handle };
}
