import { DEFAULT_BRIDGE_PORT } from '../../shared/api.ts';
import type { Clock } from '../core/clock.ts';
import { Core } from '../core/core.ts';
import { makePrivateDir } from '../core/fs/private-home.ts';
import { BridgeServer } from '../core/bridge/http-server.ts';
import { socketPathFor } from '../core/bridge/local-endpoint.ts';
import { newPipeName } from '../core/bridge/local-listener.ts';
import type { PeerUsers } from '../core/bridge/peer-user.ts';
import { TokenStore } from '../core/tokens/token-store.ts';
import type { HomePaths } from '../core/home.ts';
import { removeInstanceFile, writeInstanceFile } from '../core/instance-file.ts';
import type { Keychain } from '../core/secrets/keychain.ts';
import { QuietCompaction } from '../core/memory/quiet-compaction.ts';
import { resolveLoginPath } from '../core/supervisor/login-path.ts';
import type { SupervisorTimings } from '../core/supervisor/types.ts';
import { editorSettingsFiles } from '../core/editors/registry.ts';
import { EditorSyncService } from '../core/editors/service.ts';
import { ProjectService } from '../core/projects/project-service.ts';
import { ClaudeProjectsSync } from '../core/projects/claude-code-projects.ts';
import { ProjectDesk } from '../core/projects/project-desk.ts';
import { homedir } from 'node:os';
import type { RelayCommand } from '../core/editors/types.ts';

export interface HeadlessOptions {
  home: HomePaths;
  keychain: Keychain;
  env?: NodeJS.ProcessEnv;
  /** bridge port; default: the one in state.json, else DEFAULT_BRIDGE_PORT. 0 picks a free port. */
  port?: number | undefined;
  clock?: Clock;
  timings?: Partial<SupervisorTimings>;
  /** how long an editor's request may wait for its server in the bridge (default 5 min) */
  requestTimeoutMs?: number;
  /** how long a 2026 editor's call that asked for input (MRTR) waits for its retry (default: requestTimeoutMs) */
  inputTimeoutMs?: number;
  /** editor sync while serving (default on); `log` receives its reports (default: stderr) */
  editorSync?: boolean | { log?: (line: string) => void };
  /** how Claude Desktop's entry starts the stdio relay (default: this Node running the source) */
  relay?: RelayCommand;
  /** which local user opened each bridge connection (default: this platform's lookup; tests inject one) */
  peerUsers?: PeerUsers;
}

export interface Headless {
  core: Core;
  bridge: BridgeServer;
  /** the bridge's tokens: the control API's and one per editor */
  tokens: TokenStore;
  port: number;
  /** keeps editors' settings files in step with the approved, enabled servers (undefined when off) */
  editors: EditorSyncService | undefined;
  /**
   * Where the stdio relay reaches the bridge (run/bridge.sock, or a named pipe on Windows), or why
   * there is no such place (a home path too long for a socket): then the relay cannot connect.
   */
  relaySocket: { path: string; problem?: string };
  /** the projects and the folders offered as projects (the UI's section, the tray's offer) */
  projects: ProjectDesk;
  stop(): Promise<void>;
}

/**
 * `switchboard serve`'s composition root: the core (servers, trust, secrets, supervision, live
 * reload) plus the bridge on 127.0.0.1, and run/serve.json so the CLI can find it.
 */
export async function startHeadless(options: HeadlessOptions): Promise<Headless> {
  const { home } = options;
  const env = options.env ?? process.env;
  // (the core makes the whole home private when it is made, below)
  for (const dir of [home.root, home.run, home.logs]) makePrivateDir(dir);
  const tokens = new TokenStore(home.tokens, { watch: true });
  tokens.controlToken();
  const projects = new ProjectService(home.root, () => {
    core.lifecycle.reload();
    core.events.emit('projects');
  });
  const core = new Core({
    home,
    projects,
    keychain: options.keychain,
    env,
    watch: true,
    commandPath: await resolveLoginPath({ env }),
    tokenFiles: editorSettingsFiles(env, process.platform),
    ...(options.clock ? { clock: options.clock } : {}),
    ...(options.timings ? { timings: options.timings } : {}),
  });
  const port = options.port ?? core.state.bridgePort() ?? DEFAULT_BRIDGE_PORT;
  // The UI's projects section and the offers to add a folder an editor works in.
  const desk = new ProjectDesk({
    service: projects,
    home,
    userHome: env.HOME ?? homedir(),
    report: () => core.status.report(),
    // As `secret set` through serve: an approved server waiting for this value starts with it now.
    setSecret: async (name, value) => {
      await options.keychain.set(name, value);
      await core.secrets.restartUsers(name);
    },
    deleteSecret: async (name) => void (await options.keychain.delete(name)),
    reload: () => core.lifecycle.reload(),
    changed: () => core.events.emit('projects'),
  });
  const relaySocket = process.platform === 'win32' ? { path: newPipeName() } : socketPathFor(home.run);
  const bridge = new BridgeServer({
    core,
    projects: {
      projectOf: (s) => projects.projectOf(s, core.servers.entries().get(s)?.config),
      seen: (p, e) => projects.seen(p, e),
      folders: () => projects.projects(),
      roots: (editor, dirs) => desk.offers.note(editor, dirs),
      desk,
    },
    port,
    tokens,
    keychain: options.keychain,
    requestTimeoutMs: options.requestTimeoutMs,
    inputTimeoutMs: options.inputTimeoutMs,
    peerUsers: options.peerUsers,
    localSocket: relaySocket.problem ? undefined : relaySocket.path,
    catalog: async () =>
      new (await import('../core/catalog/catalog.ts')).Catalog({
        home,
        state: core.state,
        env,
        keychain: options.keychain,
        lookup: (cwd) => core.servers.commandLookup(cwd),
      }),
  });
  let boundPort: number;
  try {
    boundPort = await bridge.listen();
  } catch (err) {
    tokens.close();
    throw err;
  }
  try {
    await core.lifecycle.start();
  } catch (err) {
    await bridge.close();
    tokens.close();
    throw err;
  }
  await projects.watch();
  writeInstanceFile(home, {
    pid: process.pid,
    port: boundPort,
    startedAt: Date.now(),
    ...(relaySocket.problem ? {} : { socket: relaySocket.path }),
  });

  const sync = options.editorSync ?? true;
  const editors = sync
    ? EditorSyncService.create({
        core,
        tokens,
        home,
        env,
        port: boundPort,
        ...(options.relay ? { relay: options.relay } : {}),
        ...(typeof sync === 'object' && sync.log ? { log: sync.log } : {}),
      })
    : undefined;
  if (editors) bridge.attachEditors(editors);
  // Editors working in a project's folder reach its servers through their own per-project settings.
  const claudeProjects = sync
    ? new ClaudeProjectsSync(
        core,
        {
          home,
          env,
          port: boundPort,
          projects,
          ensureToken: () => tokens.ensure('claude-code'),
          discovery: () => core.state.editorSettings('claude-code').discovery === true,
        },
        (line) => console.error(line),
      )
    : undefined;
  claudeProjects?.sync();
  // With --expose-gc (bin.mjs's shebang and package.json's scripts; the desktop app's --js-flags,
  // electron/desktop/js-flags.ts): the garbage of a burst of server starts and stops is given back once it settles.
  const gc = globalThis.gc;
  // 'last-resort': V8's memory-reducing full GC, which also compacts and frees fragmented pages; a
  // plain major GC kept old space at its size (27.7 MB for 18.9 MB used after 100 first runs).
  const compaction = gc
    ? new QuietCompaction({ gc: () => gc({ type: 'major', execution: 'sync', flavor: 'last-resort' }) })
    : undefined;
  const onStatus = () => compaction?.note();
  core.events.on('status', onStatus);
  // In the background: the bridge is ready now; editors follow within milliseconds.
  void editors?.start();

  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      core.events.off('status', onStatus);
      compaction?.close();
      await editors?.close();
      claudeProjects?.close();
      await projects.close();
      await core.lifecycle.shutdown();
      await bridge.close();
      tokens.close();
      removeInstanceFile(home);
    })());
  return { core, bridge, tokens, port: boundPort, editors, relaySocket, projects: desk, stop };
}
