import { randomBytes } from 'node:crypto';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { join } from 'node:path';
import { displayText } from '../../../shared/display-text.ts';
import { ServerNameSchema } from '../../../shared/schema/servers.ts';
import {
  BundleAddRequestSchema,
  BundleRoutes,
  BundleUploadRequestSchema,
  MAX_BUNDLE_BYTES,
  type BundleView,
} from '../../../shared/store.ts';
import { UserError } from '../errors.ts';
import type { Keychain } from '../secrets/keychain.ts';
import { addBundleServer, bundleServerName } from '../store/bundle-server.ts';
import { installBundle, type InstalledBundle } from '../store/mcpb-bundle.ts';
import type { PackageStore } from '../store/package-store.ts';
import { decodePathSegment, HttpError, readJsonAs, sendJson, sendUserError } from './http-util.ts';

export interface BundleRoutesDeps {
  store: PackageStore;
  keychain: Keychain;
  serversFile: string;
  /** a server was added from the UI: note its source and apply servers.json */
  added(name: string): void;
}

/**
 * /api/bundles: the UI's drag-and-drop of an MCP bundle. Upload unpacks and checks it into the store
 * and answers what it is and what it asks for; add writes its server (pending approval), as
 * `switchboard install FILE.mcpb` does. `handle` returns false for paths it does not own.
 */
export function createBundleRoutes(deps: BundleRoutesDeps) {
  /** bundles uploaded and not added yet, by upload id (the last 20) */
  const uploaded = new Map<string, InstalledBundle>();

  async function handle(req: IncomingMessage, res: ServerResponse, path: string): Promise<boolean> {
    if (path !== BundleRoutes.upload && !path.startsWith(`${BundleRoutes.upload}/`)) return false;
    try {
      if (path === BundleRoutes.upload && req.method === 'POST') return done(res, await upload(req));
      const add = /^\/api\/bundles\/([^/]+)\/add$/.exec(path);
      if (add && req.method === 'POST') {
        const bundle = uploaded.get(decodePathSegment(add[1] ?? ''));
        if (!bundle) throw new HttpError(404, 'that bundle is not uploaded (any more): drop it again');
        const { name, values } = await readJsonAs(req, BundleAddRequestSchema);
        const named = ServerNameSchema.safeParse(name);
        if (!named.success) throw new UserError(`server name "${name}": ${named.error.issues[0]?.message}`);
        const result = await addBundleServer({
          bundle,
          name,
          values,
          serversFile: deps.serversFile,
          keychain: deps.keychain,
        });
        deps.added(name);
        return done(res, { name, secrets: result.secrets });
      }
      return false;
    } catch (err) {
      return sendUserError(res, err);
    }
  }

  async function upload(req: IncomingMessage): Promise<BundleView> {
    const { fileName, data } = await readJsonAs(
      req,
      BundleUploadRequestSchema,
      undefined,
      MAX_BUNDLE_BYTES * 2,
    );
    const bytes = Buffer.from(data, 'base64');
    if (bytes.length === 0 || bytes.length > MAX_BUNDLE_BYTES)
      throw new UserError(`${fileName} is empty or larger than ${MAX_BUNDLE_BYTES / 1024 / 1024} MB`);
    mkdirSync(deps.store.staging, { recursive: true, mode: 0o700 });
    const file = join(deps.store.staging, `upload-${randomBytes(6).toString('hex')}.mcpb`);
    writeFileSync(file, bytes, { mode: 0o600 });
    try {
      const bundle = await installBundle(file, deps.store);
      // Not the install's folder name (it has "@" and any characters of the bundle's name): a plain
      // token, one path segment the desktop app's IPC takes as it is (shared/ipc.ts).
      const id = randomBytes(9).toString('base64url');
      uploaded.set(id, bundle);
      while (uploaded.size > 20) uploaded.delete(uploaded.keys().next().value ?? '');
      const { record } = bundle;
      return {
        id,
        suggestedName: bundleServerName(record.name),
        displayName: displayText(record.displayName),
        version: displayText(record.version),
        author: displayText(record.author),
        description: displayText(record.description.slice(0, 500)),
        signature: record.signature,
        entryPoint: displayText(record.entryPoint),
        fields: Object.entries(record.userConfig).map(([key, field]) => ({
          key,
          title: displayText(field.title),
          description: displayText(field.description),
          required: field.required,
          sensitive: field.sensitive,
          default: field.default === undefined ? null : displayText(String(field.default)),
        })),
      };
    } finally {
      rmSync(file, { force: true });
    }
  }

  function done(res: ServerResponse, payload: unknown): true {
    sendJson(res, 200, payload);
    return true;
  }

  return { handle };
}
