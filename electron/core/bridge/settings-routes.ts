import type { IncomingMessage } from 'node:http';
import { DEFAULT_BRIDGE_PORT } from '../../../shared/bridge.ts';
import { DEFAULT_IDLE_TIMEOUT_S } from '../../../shared/schema/servers.ts';
import { clientMetadataUrlProblem } from '../../../shared/sign-in.ts';
import { SettingsPatchSchema, UiRoutes, type Settings } from '../../../shared/ui-api.ts';
import type { EditorSyncService } from '../editors/service.ts';
import type { HomePaths } from '../home.ts';
import type { UpdateChecks } from '../store/update-checks.ts';
import type { AppStateStore } from '../trust/app-state.ts';
import { readJsonAs, ValidationError } from './http-util.ts';

/** What the settings routes use of the core: the home, the settings in state.json, the idle default. */
export interface SettingsRoutesCore {
  readonly home: Pick<HomePaths, 'root' | 'serversFile'>;
  readonly state: Pick<
    AppStateStore,
    | 'settings'
    | 'bridgePort'
    | 'setBridgePort'
    | 'autoSync'
    | 'setAutoSync'
    | 'editorSyncNoticeRead'
    | 'markEditorSyncNoticeRead'
    | 'clientMetadataUrl'
    | 'setClientMetadataUrl'
    | 'updateChecks'
    | 'setUpdateChecks'
  >;
  readonly updates: Pick<UpdateChecks, 'settingsChanged'>;
  readonly lifecycle: {
    idleTimeoutDefault(): number;
    setIdleTimeoutDefault(seconds: number | undefined): void;
  };
}

export interface SettingsRoutesOptions {
  /** the port the bridge is bound to */
  port: () => number;
  /** editor sync, once `serve` has started it (turning auto-sync back on syncs at once) */
  editors: () => Pick<EditorSyncService, 'syncNow'> | undefined;
}

/** GET and PUT /api/settings. `handle` answers undefined for what it does not own. */
export function createSettingsRoutes(core: SettingsRoutesCore, options: SettingsRoutesOptions) {
  async function handle(req: IncomingMessage, path: string): Promise<Settings | undefined> {
    if (path !== UiRoutes.settings) return undefined;
    const method = req.method ?? 'GET';
    if (method === 'GET') return settings();
    if (method === 'PUT') return await saveSettings(req);
    return undefined;
  }

  function settings(): Settings {
    return {
      port: options.port(),
      configuredPort: core.state.bridgePort() ?? null,
      defaultPort: DEFAULT_BRIDGE_PORT,
      home: core.home.root,
      serversFile: core.home.serversFile,
      platform: process.platform,
      startAtLogin: null,
      idleTimeout: core.lifecycle.idleTimeoutDefault(),
      autoSync: core.state.autoSync(),
      editorSyncNotice: core.state.autoSync() && !core.state.editorSyncNoticeRead(),
      configuredIdleTimeout: core.state.settings().idleTimeout ?? null,
      defaultIdleTimeout: DEFAULT_IDLE_TIMEOUT_S,
      clientMetadataUrl: core.state.clientMetadataUrl() ?? null,
      updateChecks: core.state.updateChecks(),
    };
  }

  async function saveSettings(req: IncomingMessage): Promise<Settings> {
    const patch = await readJsonAs(req, SettingsPatchSchema);
    if (patch.clientMetadataUrl) {
      const problem = clientMetadataUrlProblem(patch.clientMetadataUrl);
      if (problem)
        throw new ValidationError(`Client ID Metadata Document URL: ${problem}`, [
          { path: ['clientMetadataUrl'], message: problem },
        ]);
    }
    if (patch.port !== undefined) core.state.setBridgePort(patch.port ?? DEFAULT_BRIDGE_PORT);
    if (patch.idleTimeout !== undefined) core.lifecycle.setIdleTimeoutDefault(patch.idleTimeout ?? undefined);
    if (patch.autoSync !== undefined) {
      const was = core.state.autoSync();
      core.state.setAutoSync(patch.autoSync);
      // Turned back on: the editors catch up now, not at the next change of a server.
      if (patch.autoSync && !was) await options.editors()?.syncNow();
    }
    if (patch.clientMetadataUrl !== undefined)
      core.state.setClientMetadataUrl(patch.clientMetadataUrl || undefined);
    if (patch.editorSyncNoticeRead) core.state.markEditorSyncNoticeRead(Date.now());
    if (patch.updateChecks !== undefined) {
      core.state.setUpdateChecks(patch.updateChecks);
      core.updates.settingsChanged();
    }
    return settings();
  }

  return { handle };
}
