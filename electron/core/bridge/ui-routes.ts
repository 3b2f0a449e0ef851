import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Keychain } from '../secrets/keychain.ts';
import { createApprovalRoutes, type ApprovalRoutesCore } from './approval-routes.ts';
import { createEditorRoutes, type EditorRoutesCore, type EditorRoutesOptions } from './editor-routes.ts';
import { sendJson, sendUserError, ValidationError } from './http-util.ts';
import { createProjectRoutes, type ProjectRoutesDesk } from './project-routes.ts';
import { createSecretRoutes, type SecretRoutesCore } from './secret-routes.ts';
import { createServerRoutes, type ServerRoutesCore } from './server-routes.ts';
import { createSessionRoutes } from './session-routes.ts';
import { createSettingsRoutes, type SettingsRoutesCore } from './settings-routes.ts';
import type { ApiCaller, UiSessions } from './ui-auth.ts';

/** What the UI's routes use of the core, group by group (each declared next to its routes). */
export type UiRoutesCore = ServerRoutesCore &
  ApprovalRoutesCore &
  SecretRoutesCore &
  SettingsRoutesCore &
  EditorRoutesCore;

export interface UiRoutesOptions {
  core: UiRoutesCore;
  keychain: Keychain;
  sessions: UiSessions;
  /** the port the bridge is bound to */
  port: () => number;
  /** editor sync, once `serve` has started it (undefined: not part of this process) */
  editors: EditorRoutesOptions['editors'];
  /** a running serve's projects (undefined: not followed by this process) */
  projects?: () => ProjectRoutesDesk | undefined;
}

/**
 * The control API routes the UI needs beyond status/actions/logs (control-api.ts), by concern:
 * servers (server-routes.ts), approvals and tool changes (approval-routes.ts), secrets
 * (secret-routes.ts), settings (settings-routes.ts), editors (editor-routes.ts) and browser sign-ins
 * (session-routes.ts). A request that fails validation gets 400 with every issue. `handle` returns
 * false for paths none of them owns.
 */
export function createUiRoutes(options: UiRoutesOptions) {
  const { core, keychain } = options;
  const servers = createServerRoutes(core, keychain, (name) => options.projects?.()?.originOf(name));
  const approvals = createApprovalRoutes(core, keychain);
  const secrets = createSecretRoutes(core, keychain);
  const settings = createSettingsRoutes(core, { port: options.port, editors: options.editors });
  const editors = createEditorRoutes(core, { keychain, editors: options.editors });
  const sessions = createSessionRoutes(options.sessions);
  const projects = createProjectRoutes(options.projects ?? (() => undefined));

  async function handle(
    req: IncomingMessage,
    res: ServerResponse,
    url: URL,
    caller: ApiCaller,
  ): Promise<boolean> {
    const path = url.pathname;
    try {
      const answer =
        (await servers.handle(req, path)) ??
        (await approvals.handle(req, path)) ??
        (await secrets.handle(req, path)) ??
        (await settings.handle(req, path)) ??
        (await editors.handle(req, path, caller)) ??
        (await projects.handle(req, path)) ??
        sessions.handle(req, path, caller);
      if (answer === undefined) return false;
      sendJson(res, 200, answer);
      return true;
    } catch (err) {
      if (err instanceof ValidationError) {
        sendJson(res, 400, { error: err.message, issues: err.issues });
        return true;
      }
      return sendUserError(res, err);
    }
  }

  return { handle };
}
