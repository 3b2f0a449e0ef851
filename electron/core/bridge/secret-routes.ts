import type { IncomingMessage } from 'node:http';
import {
  SecretHeldRequestSchema,
  SecretMoveRequestSchema,
  SecretValueRequestSchema,
  UiRoutes,
  type SecretsResponse,
} from '../../../shared/ui-api.ts';
import type { SwitchboardEdit } from '../../../shared/schema/state.ts';
import { moveSecret } from '../config/move-secret.ts';
import type { HomePaths } from '../home.ts';
import type { Keychain } from '../secrets/keychain.ts';
import { decodePathSegment, HttpError, readJsonAs } from './http-util.ts';
import { applyServersEdit, type ServersEditCore } from './servers-edit.ts';

/**
 * What the secret routes use of the core: the secrets and who uses them, restarting those users when
 * a value changes, and servers.json (a literal moved to the keychain is an edit of it).
 */
export interface SecretRoutesCore extends ServersEditCore {
  readonly home: Pick<HomePaths, 'serversFile'>;
  readonly servers: ServersEditCore['servers'] & {
    /** Switchboard's own edit of an entry: its source stays, the edit is added (services/source-record.ts) */
    withEditRecorded<T>(name: string, edit: SwitchboardEdit, run: () => T | Promise<T>): Promise<T>;
  };
  readonly secrets: {
    list(): Promise<SecretsResponse>;
    restartUsers(secret: string): Promise<string[]>;
  };
}

/**
 * GET /api/secrets (names and who uses them, never values), PUT/DELETE /api/secrets/<name> (values
 * are write-only), POST /api/secrets/<name>/held (free, same value or another: never the value), POST /api/secrets/move (a literal in servers.json to the keychain). `handle`
 * answers undefined for what it does not own.
 */
export function createSecretRoutes(core: SecretRoutesCore, keychain: Keychain) {
  async function handle(req: IncomingMessage, path: string): Promise<object | undefined> {
    const method = req.method ?? 'GET';
    if (path === UiRoutes.secrets && method === 'GET') return await core.secrets.list();
    if (path === UiRoutes.secretMove && method === 'POST') return await move(req);
    const secret = /^\/api\/secrets\/([^/]+)(\/held)?$/.exec(path);
    if (!secret || secret[1] === 'move') return undefined;
    const name = decodePathSegment(secret[1] ?? '');
    if (secret[2]) {
      if (method !== 'POST') return undefined;
      const { value } = await readJsonAs(req, SecretHeldRequestSchema);
      return { held: await keychain.held(name, value) };
    }
    if (method === 'PUT') return await setSecret(req, name);
    if (method === 'DELETE') {
      if (!(await keychain.delete(name)))
        throw new HttpError(404, `no secret named "${name}" in the keychain`);
      return { ok: true };
    }
    return undefined;
  }

  /** Stores a secret, then restarts the servers that use it and want to run, so they pick it up. */
  async function setSecret(req: IncomingMessage, name: string): Promise<{ ok: true; restarted: string[] }> {
    const { value } = await readJsonAs(req, SecretValueRequestSchema);
    await keychain.set(name, value);
    return { ok: true, restarted: await core.secrets.restartUsers(name) };
  }

  async function move(req: IncomingMessage): Promise<{ ok: true; name: string }> {
    const { server, key, secretName } = await readJsonAs(req, SecretMoveRequestSchema);
    // Its source stays what it was, with the move added (no longer "this window" for the whole entry).
    const name = await core.servers.withEditRecorded(server, 'secret-move', () =>
      moveSecret({
        serversFile: core.home.serversFile,
        keychain,
        server,
        key,
        ...(secretName ? { secretName } : {}),
      }),
    );
    applyServersEdit(core);
    return { ok: true, name };
  }

  return { handle };
}
