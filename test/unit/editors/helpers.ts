import { DEFAULT_BRIDGE_PORT } from '../../../shared/bridge.ts';
import type { EditorId } from '../../../shared/editors.ts';
import { bridgeUrl } from '../../../electron/core/editors/ownership.ts';
import type { FileLayout, PlannedImport, PlanResult } from '../../../electron/core/editors/file-plan.ts';
import { headersHelperCommand } from '../../../electron/core/editors/headers-helper.ts';
import { editorTokenFile } from '../../../electron/core/tokens/token-store.ts';
import { resolveHome } from '../../../electron/core/home.ts';
import { EDITORS } from '../../../electron/core/editors/registry.ts';
import type { OwnershipContext, RelayCommand } from '../../../electron/core/editors/types.ts';

/** A relay command with fixed paths, so golden files do not depend on where the repo is. */
export const TEST_RELAY: RelayCommand = {
  command: '/usr/local/bin/node',
  args: ['/opt/switchboard/electron/relay/main.ts'],
  env: { SWITCHBOARD_HOME: '/home/me/.switchboard-test' },
};

/** The Switchboard home the fixed relay, token files and header helper belong to. */
export const TEST_HOME = resolveHome({ SWITCHBOARD_HOME: TEST_RELAY.env.SWITCHBOARD_HOME }, 'linux');

export function ownership(port = DEFAULT_BRIDGE_PORT): OwnershipContext {
  return {
    ports: new Set([port, DEFAULT_BRIDGE_PORT]),
    homeRoot: TEST_RELAY.env.SWITCHBOARD_HOME ?? '',
    homeIsDefault: false,
    // no record of what Switchboard wrote: pointing at the bridge decides (engine tests cover the record)
    written: undefined,
  };
}

/** The managed entries `editor` gets for these servers (fixed token, fixed relay). */
export function desiredFor(
  editor: EditorId,
  servers: string[],
  port = DEFAULT_BRIDGE_PORT,
  token = 'tok-' + editor,
): Map<string, Record<string, unknown>> {
  const adapter = EDITORS[editor];
  return new Map(
    servers.map((server) => [
      server,
      adapter.managedEntry({
        editor,
        server,
        url: bridgeUrl(port, server),
        token: () => token,
        tokenFile: editorTokenFile(TEST_HOME.tokens, editor),
        headersHelper: () => headersHelperCommand(TEST_HOME, editor, 'linux'),
        relay: TEST_RELAY,
      }),
    ]),
  );
}

export interface Step {
  text: string | undefined;
  layout: FileLayout | undefined;
  result: Extract<PlanResult, { ok: true }>;
}

/** One sync of `text` to exactly these servers, as the engine plans it. */
export function syncText(
  editor: EditorId,
  text: string | undefined,
  servers: string[],
  layout?: FileLayout,
  options: {
    port?: number;
    token?: string;
    adopt?: Map<string, string>;
    restore?: PlannedImport[][];
  } = {},
): Step {
  const adapter = EDITORS[editor];
  const own = ownership(options.port);
  const result = adapter.format.plan({
    text,
    serversKey: adapter.serversKey,
    desired: desiredFor(editor, servers, options.port, options.token),
    isManaged: (_name, entry) => adapter.pointsAtBridge(entry, own),
    layout,
    file: '/test/' + editor,
    ...(options.adopt ? { adopt: options.adopt } : {}),
    ...(options.restore ? { restore: options.restore } : {}),
  });
  if (!result.ok) throw new Error(`plan failed: ${result.problem}`);
  return { text: result.text, layout: result.layout, result };
}
