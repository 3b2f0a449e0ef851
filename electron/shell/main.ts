// The desktop app's composition root: the same core and bridge as `switchboard serve`, plus a tray,
// notifications, the switchboard:// protocol, start at login and the window. Every decision lives in
// plain functions under electron/desktop/ (tested under Node); this file only wires them to Electron.
// Built by Forge's Vite plugin into .vite/build/main.cjs (CommonJS: it runs synchronously, so the
// listeners below exist before the app finishes launching).
import {
  app,
  BaseWindow,
  BrowserWindow,
  ipcMain,
  Menu,
  nativeImage,
  Notification,
  powerMonitor,
  protocol,
  shell,
  Tray,
  type MenuItemConstructorOptions,
  type NativeImage,
} from 'electron';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { ApiEventSchema, type ApiEvent } from '../../shared/api.ts';
import {
  IPC_EVENT,
  IPC_REQUEST,
  IPC_SHELL,
  IpcRequestSchema,
  IpcShellRequestSchema,
  type IpcRequest,
  type IpcResponse,
} from '../../shared/ipc.ts';
import { displayMessage } from '../../shared/display-text.ts';
import {
  installLauncher,
  launcherPlace,
  launcherState,
  launcherText,
  onPath,
  type LauncherPlace,
  type LauncherState,
} from '../core/cli-launcher.ts';
import { readServerValue, setServer } from '../core/config/edit.ts';
import { describeError } from '../core/errors.ts';
import { resolveHome } from '../core/home.ts';
import { OsKeychain } from '../core/secrets/keychain.ts';
import { addBundleServer, bundleServerName } from '../core/store/bundle-server.ts';
import { installBundle } from '../core/store/mcpb-bundle.ts';
import { bundleFileFromArgv, bundleOpenPlan, isBundleFile } from '../desktop/bundle-file.ts';
import { APP_SCHEME, APP_START_URL, serveAppAsset } from '../desktop/app-protocol.ts';
import { cliInstalledMessage, cliMenuLabel, desktopCliTarget } from '../desktop/cli-command.ts';
import { deepLinkFromArgv, parseDeepLink, PROTOCOL } from '../desktop/deep-link.ts';
import { catalogTarget, installFromLink } from '../desktop/install-link.ts';
import { refusedIpcRequest, toIpcResponse, withDesktopSettings } from '../desktop/ipc-relay.ts';
import { jsFlagsRelaunch, jsFlagsValue, RELAUNCHED_ENV } from '../desktop/js-flags.ts';
import { LinkQueue } from '../desktop/link-queue.ts';
import { linuxAutostartEntry, linuxAutostartFile } from '../desktop/login-item.ts';
import {
  approvalBody,
  approvalNotifications,
  projectOfferNotifications,
  signInNotifications,
  toolChangeNotifications,
} from '../desktop/notifications.ts';
import { quitSequence } from '../desktop/quit.ts';
import { desktopRelayCommand } from '../desktop/relay-command.ts';
import { squirrelStartup, squirrelUpdateExe, windowsLoginItem } from '../desktop/squirrel.ts';
import { ApprovalPreviews } from '../desktop/approval-previews.ts';
import {
  buildTrayMenu,
  menuLabel,
  showWindowAtStart,
  trayAppearance,
  trayHealth,
  trayTooltip,
  type TrayAction,
  type TrayItem,
} from '../desktop/tray-menu.ts';
import { isExternalWebLink, isOwnPage, signInPageToOpen } from '../desktop/window-policy.ts';
import { startHeadless, type Headless } from '../headless/serve.ts';
import { syncResult } from '../core/editors/report.ts';
import { EDITOR_LABELS } from '../../shared/editors.ts';
import type { StatusReport } from '../../shared/status.ts';
import { grantSandboxPath } from '../core/config/sandbox-grant.ts';

// Set by Electron Forge's Vite plugin at build time.
declare const MAIN_WINDOW_VITE_DEV_SERVER_URL: string | undefined;
declare const MAIN_WINDOW_VITE_NAME: string;

const home = resolveHome();
let headless: Headless | undefined;
let tray: Tray | undefined;
let window: BrowserWindow | undefined;
let notified = new Map<string, string>();
let notifiedTools = new Map<string, string>();
let notifiedSignIns = new Set<string>();
let notifiedOffers = new Set<string>();
/** what approving each waiting server allows, for the tray menu (a package run resolved first) */
const trayPreviews = new ApprovalPreviews();
const notifications = new Set<Notification>(); // keep references so clicks still arrive
const links = new LinkQueue();

const quit = quitSequence({
  stopCore: async () => {
    await headless?.stop();
  },
  exit: (code) => app.exit(code),
  log: (text) => console.error(text),
});

// A Squirrel install/update/uninstall on Windows runs the app only to manage shortcuts: do that and
// quit before anything else starts (no single-instance lock, no tray, no servers).
const squirrel = squirrelStartup(process.argv, process.platform, process.execPath);
// serve's V8 flags for this main process too (electron/desktop/js-flags.ts): only a relaunch can.
const relaunch =
  squirrel.kind === 'quit'
    ? undefined
    : jsFlagsRelaunch({
        argv: process.argv,
        platform: process.platform,
        current: app.commandLine.getSwitchValue('js-flags'),
        env: process.env,
      });
if (squirrel.kind === 'quit') {
  if (squirrel.removeLoginItem) app.setLoginItemSettings({ openAtLogin: false, ...loginItemWindows() });
  if (squirrel.update) {
    spawn(squirrel.update.command, squirrel.update.args, { detached: true }).on('close', () => app.quit());
  } else app.quit();
} else if (relaunch) {
  // Before the single-instance lock, a window or a server: the relaunched app does all of it.
  process.env[RELAUNCHED_ENV] = '1';
  app.relaunch({ args: relaunch });
  app.exit(0);
} else if (!app.requestSingleInstanceLock()) {
  // A second launch hands its arguments (a switchboard:// link on Windows/Linux) to the first.
  app.quit();
} else {
  Reflect.deleteProperty(process.env, RELAUNCHED_ENV); // not for the servers it starts
  // The windows' renderers get the same flags (macOS's main process, which is not relaunched, not).
  if (!app.commandLine.hasSwitch('js-flags')) app.commandLine.appendSwitch('js-flags', jsFlagsValue());
  // Before `ready`, as Electron requires: app:// pages are a secure, standard origin.
  protocol.registerSchemesAsPrivileged([
    { scheme: APP_SCHEME, privileges: { standard: true, secure: true, supportFetchAPI: true } },
  ]);
  app.setAsDefaultProtocolClient(PROTOCOL);
  app.on('second-instance', (_event, argv) => {
    const bundle = bundleFileFromArgv(argv);
    if (bundle) return void openBundle(bundle);
    const link = deepLinkFromArgv(argv);
    // Without a link it means "show me": queued like a link, in case the core is not up yet.
    links.push(link ?? `${PROTOCOL}://open`);
  });
  // On macOS a link that launches the app arrives here before `ready`: it waits in the queue.
  app.on('open-url', (event, url) => {
    event.preventDefault();
    links.push(url);
  });
  // macOS: an .mcpb double-clicked or dropped on the app (the file association in forge.config.ts).
  app.on('open-file', (event, path) => {
    if (!isBundleFile(path)) return;
    event.preventDefault();
    void openBundle(path);
  });
  app.on('window-all-closed', () => {
    // A tray app keeps running with no window; on macOS it also leaves the Dock.
    app.dock?.hide();
  });
  app.on('before-quit', (event) => {
    if (!quit.started || headless) {
      event.preventDefault();
      void quit.run();
    }
  });
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, () => void quit.run());
  void app.whenReady().then(start, (err: unknown) => fatal(err));
}

async function start(): Promise<void> {
  app.dock?.hide();
  serveRenderer();
  watchSessionEnd();
  try {
    headless = await startHeadless({
      home,
      keychain: new OsKeychain(),
      relay: desktopRelayCommand({
        execPath: process.execPath,
        appPath: app.getAppPath(),
        home,
        env: process.env,
        platform: process.platform,
      }),
    });
  } catch (err) {
    return fatal(err);
  }
  const core = headless.core;
  for (const file of openingBundles.splice(0)) void openBundle(file);
  tray = new Tray(trayIcon('idle'));
  tray.on('click', () => showWindow());
  const refresh = () => {
    const report = core.status.report();
    const health = trayHealth(report);
    tray?.setImage(trayIcon(health));
    tray?.setToolTip(trayTooltip(report));
    if (process.platform === 'darwin') tray?.setTitle(trayAppearance(health, process.platform).title);
    tray?.setContextMenu(trayMenu());
    previewForTray(report);
    notifyApprovals();
    notifyToolChanges();
    notifySignIns();
  };
  for (const event of ['status', 'removed', 'config', 'toolChange'] as const) core.events.on(event, refresh);
  core.events.on('signIn', (outcome) => {
    if (outcome.result === 'signed-in') notify(`Signed in to ${outcome.name}.`);
    else if (outcome.result === 'failed')
      notify(`Could not sign in to ${outcome.name}: ${outcome.message ?? ''}`);
  });
  // An editor works in a folder with MCP files that is no project yet: the person is asked, only.
  core.events.on('projects', () => notifyProjectOffers());
  refresh();
  wireIpc();
  // Windows/Linux pass a link (or an .mcpb file) that launches the app as an argument; macOS's came as
  // open-url / open-file.
  const argvBundle = bundleFileFromArgv(process.argv);
  if (argvBundle) void openBundle(argvBundle);
  const argvLink = deepLinkFromArgv(process.argv);
  if (argvLink) links.push(argvLink);
  const link = links.pending > 0;
  links.ready(handleLink);
  const openedAtLogin = process.platform === 'darwin' && app.getLoginItemSettings().wasOpenedAtLogin;
  const editorSyncNotice = core.state.autoSync() && !core.state.editorSyncNoticeRead();
  if (showWindowAtStart({ argv: process.argv, openedAtLogin, link, editorSyncNotice })) showWindow();
}

/** Serves the built renderer at app://switchboard/ with the CSP on every response (app-protocol.ts). */
function serveRenderer(): void {
  if (MAIN_WINDOW_VITE_DEV_SERVER_URL) return; // `electron-forge start`: Vite's dev server serves it
  const root = join(import.meta.dirname, '..', 'renderer', MAIN_WINDOW_VITE_NAME);
  protocol.handle(APP_SCHEME, async (request) => {
    const answer = await serveAppAsset(
      root,
      request.url,
      (file) => readFile(file).catch(() => undefined),
      () => randomBytes(16).toString('base64'),
    );
    return new Response(answer.body, { status: answer.status, headers: answer.headers });
  });
}

/**
 * Logging out or shutting down stops every server like Quit does. Windows tells only windows
 * (session-end), so a hidden one listens even while the UI window is closed; macOS and Linux tell
 * powerMonitor.
 */
function watchSessionEnd(): void {
  if (process.platform === 'win32') {
    const sentinel = new BaseWindow({
      show: false,
      width: 1,
      height: 1,
      skipTaskbar: true,
      focusable: false,
    });
    sentinel.on('session-end', () => void quit.run());
  } else {
    powerMonitor.on('shutdown', () => void quit.run());
  }
}

function notifyApprovals(): void {
  if (!headless || !Notification.isSupported()) return;
  const core = headless.core;
  const { raise, notified: next } = approvalNotifications(
    core.status.report(),
    notified,
    (name) => name,
    process.platform,
  );
  notified = next;
  for (const spec of raise) {
    // The command line, the package it installs (resolved at its registry first), and every secret or
    // env variable it would pass on: an Approve button is there, bound to exactly what is shown.
    void core.approvals.preview(spec.server).then(
      (preview) => {
        const shown = { ...spec, fingerprint: preview.fingerprint, body: approvalBody(preview) };
        show(
          shown,
          (choice) =>
            void runAction(
              choice === 'Approve'
                ? // the config this notification described; a later change is refused and asks again
                  { type: 'approve', server: shown.server, fingerprint: shown.fingerprint }
                : { type: 'deny', server: shown.server },
            ),
          () => showWindow('approvals', shown.server),
        );
      },
      // Not resolvable now (offline): the notification opens the approval, which says why.
      (err: unknown) =>
        show(
          { ...spec, body: `${spec.server}: ${describeError(err)}`, actions: [] },
          () => showWindow('approvals', spec.server),
          () => showWindow('approvals', spec.server),
        ),
    );
  }
}

/**
 * Shows a notification with its action buttons (where the OS has them) and keeps a reference to it
 * until it closes, so its clicks still arrive.
 */
function show<A extends string>(
  spec: { title: string; body: string; actions: readonly A[] },
  onAction: (choice: A | undefined) => void,
  onClick: () => void,
): void {
  const n = new Notification({
    title: spec.title,
    body: spec.body,
    actions: spec.actions.map((text) => ({ type: 'button' as const, text })),
  });
  n.on('action', (_event, index) => onAction(spec.actions[index]));
  n.on('click', onClick);
  n.on('close', () => notifications.delete(n));
  notifications.add(n);
  n.show();
}

/** Changed tools, with what changed in them: Accept accepts exactly the change the notification shows. */
function notifyToolChanges(): void {
  if (!headless || !Notification.isSupported()) return;
  const { raise, notified: next } = toolChangeNotifications(
    headless.core.tools.toolChanges(),
    notifiedTools,
    process.platform,
  );
  notifiedTools = next;
  for (const spec of raise) {
    const review = () => showWindow('approvals', spec.server);
    show(
      spec,
      (choice) =>
        choice === 'Accept'
          ? void runAction({ type: 'accept-tools', server: spec.server, change: spec.change })
          : review(),
      review,
    );
  }
}

/** "Linear needs you to sign in": clicking it (or its Sign in button) starts the sign-in. */
function notifySignIns(): void {
  if (!headless || !Notification.isSupported()) return;
  const { raise, notified: next } = signInNotifications(
    headless.core.status.report(),
    notifiedSignIns,
    process.platform,
  );
  notifiedSignIns = next;
  for (const spec of raise) {
    const signIn = () => void runAction({ type: 'sign-in', server: spec.server });
    show(spec, signIn, signIn);
  }
}

function trayMenu(): Menu {
  const core = headless?.core;
  const options = { ...loginOptions(), cliCommand: cliMenuLabel(cliLauncher().state) };
  const items = core
    ? buildTrayMenu(core.status.report(), options, core.tools.toolChanges(), (s) =>
        trayPreviews.get(s.name, s.fingerprint),
      )
    : [];
  return Menu.buildFromTemplate(toMenu(items));
}

/** The `switchboard` command this app offers to put on PATH, and what is at its place now. */
function cliLauncher(): { place: LauncherPlace; text: string; state: LauncherState } {
  const place = launcherPlace(process.env);
  const text = launcherText(
    desktopCliTarget({ execPath: process.execPath, appPath: app.getAppPath(), platform: process.platform }),
  );
  return { place, text, state: launcherState(place.file, text) };
}

function installCliCommand(): void {
  const { place, text } = cliLauncher();
  installLauncher(place, text);
  notify(cliInstalledMessage(place, onPath(place.dir, process.env), process.platform));
  tray?.setContextMenu(trayMenu());
}

/** Asks for what approving each newly waiting server allows; the menu shows it once it is in. */
function previewForTray(report: StatusReport): void {
  const core = headless?.core;
  if (!core) return;
  for (const { name, fingerprint } of trayPreviews.wanted(report, Date.now())) {
    void core.approvals
      .preview(name)
      .then(
        (preview) => trayPreviews.resolved(name, fingerprint, preview),
        (err: unknown) =>
          trayPreviews.failed(name, fingerprint, displayMessage(describeError(err)), Date.now()),
      )
      .then(() => tray?.setContextMenu(trayMenu()));
  }
}

/** A sign-in started from the tray or a notification goes to the system browser. */
async function signIn(server: string): Promise<void> {
  const start = await headless?.core.signIns.signIn(server);
  if (start?.status === 'browser') {
    const page = signInPageToOpen(start.url);
    if (page) await shell.openExternal(page);
  } else if (start?.status === 'signed-in') notify(`${server} is signed in.`);
}

async function runAction(action: TrayAction): Promise<void> {
  const core = headless?.core;
  if (!core) return;
  try {
    switch (action.type) {
      case 'open':
        return showWindow(action.view, ...(action.server ? [action.server] : []));
      case 'approve':
        core.approvals.approve(action.server, action.fingerprint, 'ui');
        return;
      case 'deny':
        return core.approvals.deny(action.server);
      case 'grant':
        // servers.json's sandbox edited: the watcher sees it and the server waits for approval
        await core.servers.withEditRecorded(action.server, 'sandbox-grant', () =>
          grantSandboxPath(core.home.serversFile, action.server, action, process.env.HOME),
        );
        return;
      case 'accept-tools':
        // the change the menu or notification showed; a later one is refused and asks again
        return core.tools.acceptTools(action.server, action.change);
      case 'sign-in':
        return await signIn(action.server);
      case 'start':
        return await core.lifecycle.startServer(action.server);
      case 'restart':
        return await core.lifecycle.restartServer(action.server);
      case 'stop':
        return await core.lifecycle.stopServer(action.server);
      case 'sync': {
        const problems = syncResult((await headless?.editors?.syncNow()) ?? []).problems;
        if (problems.length)
          notify(problems.map((p) => `${EDITOR_LABELS[p.editor]}: ${p.message}`).join('\n'));
        return;
      }
      case 'install-cli':
        return installCliCommand();
      case 'toggle-start-at-login':
        setStartAtLogin(!loginOptions().startAtLogin);
        tray?.setContextMenu(trayMenu());
        return;
      case 'quit':
        return await quit.run();
    }
  } catch (err) {
    notify(describeError(err));
  }
}

/** A switchboard:// link, once the core is up (LinkQueue holds earlier ones). */
function handleLink(link: string): void {
  const parsed = parseDeepLink(link);
  if (parsed.kind === 'open') return showWindow(parsed.view);
  if (parsed.kind === 'invalid') return notify(parsed.message);
  if (parsed.kind === 'install-registry') {
    const target = catalogTarget(parsed);
    return showWindow(target.view, ...target.segments);
  }
  const core = headless?.core;
  if (!core) return;
  try {
    const outcome = installFromLink(parsed, {
      exists: (name) => readServerValue(home.serversFile, name) !== undefined,
      add: (name, config) => setServer(home.serversFile, name, config),
      noteSource: (name) => core.servers.noteSource(name, 'install-link'),
    });
    if (!outcome.ok) return notify(outcome.message);
    core.lifecycle.reload();
    showWindow(outcome.view, outcome.server);
  } catch (err) {
    notify(`Could not add "${parsed.name}": ${describeError(err)}`);
  }
}

/** "Folder X has MCP servers in .mcp.json — add it as a project?": a click opens Projects. */
function notifyProjectOffers(): void {
  if (!headless) return;
  const { raise, notified: next } = projectOfferNotifications(
    headless.projects.offers.list(),
    notifiedOffers,
  );
  notifiedOffers = next;
  for (const offer of raise) {
    const body = displayMessage(offer.body);
    if (!Notification.isSupported()) {
      console.error(body);
      continue;
    }
    const shown = new Notification({ title: offer.title, body });
    notifications.add(shown);
    shown.on('click', () => {
      notifications.delete(shown);
      showWindow('projects');
    });
    shown.on('close', () => notifications.delete(shown));
    shown.show();
  }
}

function notify(message: string): void {
  // Errors and refusals may quote a config value: nothing hidden in it reaches the notification.
  const body = displayMessage(message);
  if (Notification.isSupported()) new Notification({ title: 'Switchboard', body }).show();
  else console.error(body);
}

/**
 * An MCP bundle opened with the app: unpacked and checked into the store; with nothing to ask its
 * server is added pending approval (the approval notification follows), otherwise the window opens on
 * Add a server → MCP bundle, where its settings are asked for.
 */
const openingBundles: string[] = [];
async function openBundle(file: string): Promise<void> {
  const core = headless?.core;
  if (!core) {
    // Before the core is up (a cold start with the file): taken once it is.
    openingBundles.push(file);
    return;
  }
  try {
    const bundle = await installBundle(file, core.packages.store);
    if (bundleOpenPlan(bundle.record.userConfig) === 'ask') {
      notify(
        `${bundle.record.displayName} needs its settings: drop ${basename(file)} on Add a server → MCP bundle.`,
      );
      return showWindow('add');
    }
    const name = bundleServerName(bundle.record.name);
    await addBundleServer({
      bundle,
      name,
      values: {},
      serversFile: core.home.serversFile,
      keychain: new OsKeychain(),
    });
    core.servers.noteSource(name, 'ui');
    core.lifecycle.reload();
  } catch (err) {
    notify(`Could not open ${basename(file)}: ${describeError(err)}`);
  }
}

function showWindow(view?: string, ...segments: string[]): void {
  app.dock?.show();
  if (!window || window.isDestroyed()) window = createWindow();
  const hash = view ? `#/${view}${segments.map((s) => `/${encodeURIComponent(s)}`).join('')}` : '';
  if (hash) void window.webContents.executeJavaScript(`location.hash = ${JSON.stringify(hash)}`);
  window.show();
  window.focus();
}

function createWindow(): BrowserWindow {
  const win = new BrowserWindow({
    width: 1100,
    height: 760,
    show: false,
    title: 'Switchboard',
    webPreferences: {
      preload: join(import.meta.dirname, 'preload.cjs'),
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      webSecurity: true,
    },
  });
  const appUrl = MAIN_WINDOW_VITE_DEV_SERVER_URL ?? APP_START_URL;
  win.webContents.on('will-navigate', (event, url) => {
    if (!isOwnPage(url, appUrl)) event.preventDefault();
  });
  win.webContents.setWindowOpenHandler(({ url }) => {
    if (isExternalWebLink(url)) void shell.openExternal(url);
    return { action: 'deny' };
  });
  win.on('closed', () => {
    window = undefined;
  });
  void win.loadURL(appUrl);
  return win;
}

function wireIpc(): void {
  const bridge = headless?.bridge;
  if (!bridge) return;
  ipcMain.handle(IPC_REQUEST, async (event, raw: unknown): Promise<IpcResponse> => {
    if (!window || event.sender !== window.webContents) throw new Error('not Switchboard’s window');
    const request = IpcRequestSchema.safeParse(raw);
    if (!request.success) return refusedIpcRequest(request.error.issues[0]?.message ?? 'invalid request');
    const response = await relayToControlApi(request.data);
    return withDesktopSettings(request.data, response, loginOptions().startAtLogin);
  });
  ipcMain.handle(IPC_SHELL, (event, raw: unknown) => {
    if (!window || event.sender !== window.webContents) throw new Error('not Switchboard’s window');
    const request = IpcShellRequestSchema.parse(raw);
    if (request.type === 'set-start-at-login') setStartAtLogin(request.enabled);
    else {
      // The window opens sign-in pages this way: the same rule as the tray's sign-in.
      const page = signInPageToOpen(request.url);
      if (page) void shell.openExternal(page);
    }
  });
  // Everything the browser UI gets on /api/events, so the window is live the same way.
  bridge.onEvent((event: ApiEvent) => {
    if (window && !window.isDestroyed()) window.webContents.send(IPC_EVENT, ApiEventSchema.parse(event));
  });
}

/** The IPC implementation of the UI's API relays each request to the in-process bridge's control API. */
async function relayToControlApi(request: IpcRequest): Promise<IpcResponse> {
  if (!headless) return { status: 503, body: { error: 'Switchboard is still starting' } };
  const res = await fetch(`http://127.0.0.1:${headless.port}${request.path}`, {
    method: request.method,
    headers: {
      authorization: `Bearer ${headless.tokens.controlToken()}`,
      'content-type': 'application/json',
    },
    ...(request.body === undefined || request.method === 'GET' ? {} : { body: JSON.stringify(request.body) }),
  });
  return toIpcResponse(res.status, await res.text());
}

/** Windows: the login item's path and args (the Squirrel stub launcher when installed by Squirrel). */
function loginItemWindows(): { path: string; args: string[] } {
  return windowsLoginItem(process.execPath, existsSync(squirrelUpdateExe(process.execPath)));
}

function loginOptions(): { startAtLogin: boolean; loginItemSupported: boolean } {
  if (process.platform === 'linux') {
    return { startAtLogin: existsSync(linuxAutostartFile(process.env)), loginItemSupported: true };
  }
  const query = process.platform === 'win32' ? loginItemWindows() : {};
  return { startAtLogin: app.getLoginItemSettings(query).openAtLogin, loginItemSupported: true };
}

function setStartAtLogin(enabled: boolean): void {
  if (process.platform === 'linux') {
    const file = linuxAutostartFile(process.env);
    if (enabled) {
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, linuxAutostartEntry(process.execPath));
    } else rmSync(file, { force: true });
    return;
  }
  if (process.platform === 'win32') app.setLoginItemSettings({ openAtLogin: enabled, ...loginItemWindows() });
  else app.setLoginItemSettings({ openAtLogin: enabled });
}

function trayIcon(health: ReturnType<typeof trayHealth>): NativeImage {
  const icons = app.isPackaged
    ? join(process.resourcesPath, 'icons')
    : join(import.meta.dirname, '../../build/icons');
  const look = trayAppearance(health, process.platform);
  const image = nativeImage.createFromPath(join(icons, look.icon));
  if (look.template) image.setTemplateImage(true);
  return image;
}

function toMenu(items: TrayItem[]): MenuItemConstructorOptions[] {
  return items.map((item): MenuItemConstructorOptions => {
    if (item.kind === 'separator') return { type: 'separator' };
    const { action } = item;
    return {
      label: menuLabel(item.label),
      type: item.kind === 'checkbox' ? 'checkbox' : 'normal',
      ...(item.checked !== undefined ? { checked: item.checked } : {}),
      enabled: item.enabled ?? true,
      ...(item.submenu ? { submenu: toMenu(item.submenu) } : {}),
      ...(action ? { click: () => void runAction(action) } : {}),
    };
  });
}

function fatal(err: unknown): void {
  console.error(`Switchboard could not start: ${describeError(err)}`);
  app.exit(1);
}
