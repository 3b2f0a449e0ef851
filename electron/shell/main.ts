// The desktop app's composition root: the same core and bridge as `switchboard serve`, plus a tray,
// notifications, the switchboard:// protocol, start at login and the window. Every decision lives in
// plain functions under electron/desktop/ (tested under Node); this file only wires them to Electron.
import {
  app,
  BrowserWindow,
  ipcMain,
  Menu,
  nativeImage,
  Notification,
  shell,
  Tray,
  type MenuItemConstructorOptions,
  type NativeImage,
} from 'electron';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { ApiEventSchema, type ApiEvent } from '../../shared/api.ts';
import {
  IPC_EVENT,
  IPC_REQUEST,
  IPC_SHELL,
  IpcRequestSchema,
  IpcShellRequestSchema,
  type IpcResponse,
} from '../../shared/ipc.ts';
import { setServer } from '../core/config/edit.ts';
import { describeError } from '../core/errors.ts';
import { resolveHome } from '../core/home.ts';
import { OsKeychain } from '../core/secrets/keychain.ts';
import { describeLaunch } from '../core/trust/command-line.ts';
import { deepLinkFromArgv, parseDeepLink, PROTOCOL } from '../desktop/deep-link.ts';
import { linuxAutostartEntry, linuxAutostartFile } from '../desktop/login-item.ts';
import { approvalNotifications } from '../desktop/notifications.ts';
import { quitSequence } from '../desktop/quit.ts';
import {
  buildTrayMenu,
  trayHealth,
  trayTooltip,
  type TrayAction,
  type TrayItem,
} from '../desktop/tray-menu.ts';
import { CONTENT_SECURITY_POLICY, isExternalWebLink, isOwnPage } from '../desktop/window-policy.ts';
import { startHeadless, type Headless } from '../headless/serve.ts';

// Set by Electron Forge's Vite plugin at build time.
declare const MAIN_WINDOW_VITE_DEV_SERVER_URL: string | undefined;
declare const MAIN_WINDOW_VITE_NAME: string;

const home = resolveHome();
let headless: Headless | undefined;
let tray: Tray | undefined;
let window: BrowserWindow | undefined;
let notified = new Map<string, string>();
const notifications = new Set<Notification>(); // keep references so clicks still arrive

if (!app.requestSingleInstanceLock()) {
  // A second launch hands its arguments (a switchboard:// link on Windows/Linux) to the first.
  app.quit();
} else {
  app.setAsDefaultProtocolClient(PROTOCOL);
  app.on('second-instance', (_event, argv) => {
    const link = deepLinkFromArgv(argv);
    if (link) void handleLink(link);
    else showWindow();
  });
  app.on('open-url', (event, url) => {
    event.preventDefault();
    void handleLink(url);
  });
  app.on('window-all-closed', () => {
    // A tray app keeps running with no window; on macOS it also leaves the Dock.
    app.dock?.hide();
  });
  void app.whenReady().then(start, (err: unknown) => fatal(err));
}

const quit = quitSequence({
  stopCore: async () => {
    await headless?.stop();
  },
  exit: (code) => app.exit(code),
  log: (text) => console.error(text),
});
app.on('before-quit', (event) => {
  if (!quit.started || headless) {
    event.preventDefault();
    void quit.run();
  }
});
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, () => void quit.run());

async function start(): Promise<void> {
  app.dock?.hide();
  try {
    headless = await startHeadless({ home, keychain: new OsKeychain() });
  } catch (err) {
    return fatal(err);
  }
  const core = headless.core;
  tray = new Tray(trayIcon('idle'));
  tray.on('click', () => showWindow());
  const refresh = () => {
    const report = core.status();
    const health = trayHealth(report);
    tray?.setImage(trayIcon(health));
    tray?.setToolTip(trayTooltip(report));
    if (process.platform === 'darwin') tray?.setTitle(health === 'attention' ? '!' : '');
    tray?.setContextMenu(Menu.buildFromTemplate(toMenu(buildTrayMenu(report, loginOptions()))));
    notifyApprovals();
  };
  for (const event of ['status', 'removed', 'config'] as const) core.events.on(event, refresh);
  refresh();
  wireIpc();
  const link = deepLinkFromArgv(process.argv);
  if (link) await handleLink(link);
  else if (!process.argv.includes('--hidden')) showWindow();
}

function notifyApprovals(): void {
  if (!headless || !Notification.isSupported()) return;
  const core = headless.core;
  const describe = (name: string) => {
    const entry = core.entries().get(name);
    return entry ? (describeLaunch(entry.launch)[0] ?? name) : name;
  };
  const { raise, notified: next } = approvalNotifications(
    core.status(),
    notified,
    describe,
    process.platform,
  );
  notified = next;
  for (const spec of raise) {
    const n = new Notification({
      title: spec.title,
      body: spec.body,
      actions: spec.actions.map((text) => ({ type: 'button' as const, text })),
    });
    n.on('action', (_event, index) => {
      const choice = spec.actions[index];
      void runAction(
        choice === 'Approve'
          ? { type: 'approve', server: spec.server }
          : { type: 'deny', server: spec.server },
      );
    });
    n.on('click', () => showWindow('approvals', spec.server));
    n.on('close', () => notifications.delete(n));
    notifications.add(n);
    n.show();
  }
}

async function runAction(action: TrayAction): Promise<void> {
  const core = headless?.core;
  if (!core) return;
  try {
    switch (action.type) {
      case 'open':
        return showWindow(action.view, action.server);
      case 'approve':
        core.approve(action.server, 'ui');
        return;
      case 'deny':
        return core.deny(action.server);
      case 'start':
        return await core.startServer(action.server);
      case 'restart':
        return await core.restartServer(action.server);
      case 'stop':
        return await core.stopServer(action.server);
      case 'sync':
        await ipcRequest({ method: 'POST', path: '/api/editors/sync', body: {} });
        return;
      case 'toggle-start-at-login':
        setStartAtLogin(!loginOptions().startAtLogin);
        tray?.setContextMenu(Menu.buildFromTemplate(toMenu(buildTrayMenu(core.status(), loginOptions()))));
        return;
      case 'quit':
        return await quit.run();
    }
  } catch (err) {
    new Notification({ title: 'Switchboard', body: describeError(err) }).show();
  }
}

async function handleLink(link: string): Promise<void> {
  const parsed = parseDeepLink(link);
  if (parsed.kind === 'open') return showWindow(parsed.view);
  if (parsed.kind === 'invalid') {
    new Notification({ title: 'Switchboard', body: parsed.message }).show();
    return;
  }
  try {
    setServer(home.serversFile, parsed.name, parsed.config);
    headless?.core.noteSource(parsed.name, 'install-link');
    headless?.core.reload();
    showWindow('approvals', parsed.name);
  } catch (err) {
    new Notification({
      title: 'Switchboard',
      body: `Could not add "${parsed.name}": ${describeError(err)}`,
    }).show();
  }
}

function showWindow(view?: string, server?: string): void {
  app.dock?.show();
  if (!window || window.isDestroyed()) window = createWindow();
  const hash = view ? `#/${view}${server ? `/${encodeURIComponent(server)}` : ''}` : '';
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
      preload: join(import.meta.dirname, 'preload.js'),
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      webSecurity: true,
    },
  });
  const appUrl =
    MAIN_WINDOW_VITE_DEV_SERVER_URL ??
    `file://${join(import.meta.dirname, `../renderer/${MAIN_WINDOW_VITE_NAME}/index.html`)}`;
  win.webContents.session.webRequest.onHeadersReceived((details, callback) => {
    callback({
      responseHeaders: { ...details.responseHeaders, 'Content-Security-Policy': [CONTENT_SECURITY_POLICY] },
    });
  });
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
  const core = headless?.core;
  if (!core) return;
  ipcMain.handle(IPC_REQUEST, async (event, raw: unknown) => {
    if (!window || event.sender !== window.webContents) throw new Error('not Switchboard’s window');
    const request = IpcRequestSchema.parse(raw);
    return ipcRequest(request);
  });
  ipcMain.handle(IPC_SHELL, (event, raw: unknown) => {
    if (!window || event.sender !== window.webContents) throw new Error('not Switchboard’s window');
    const request = IpcShellRequestSchema.parse(raw);
    if (request.type === 'set-start-at-login') setStartAtLogin(request.enabled);
    else void shell.openExternal(request.url);
  });
  const forward = (event: ApiEvent) => {
    if (window && !window.isDestroyed()) window.webContents.send(IPC_EVENT, ApiEventSchema.parse(event));
  };
  core.events.on('status', (status) => forward({ type: 'status', status }));
  core.events.on('removed', (name) => forward({ type: 'removed', name }));
  core.events.on('log', (line) => forward({ type: 'log', line }));
  core.events.on('config', (report) => forward({ type: 'config', report }));
}

/** The IPC implementation of the UI's API relays each request to the in-process bridge's control API. */
async function ipcRequest(request: { method: string; path: string; body?: unknown }): Promise<IpcResponse> {
  if (!headless) return { status: 503, body: { error: 'Switchboard is still starting' } };
  const res = await fetch(`http://127.0.0.1:${headless.port}${request.path}`, {
    method: request.method,
    headers: {
      authorization: `Bearer ${headless.tokens.controlToken()}`,
      'content-type': 'application/json',
    },
    ...(request.body === undefined || request.method === 'GET' ? {} : { body: JSON.stringify(request.body) }),
  });
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as unknown) : null };
}

function loginOptions(): { startAtLogin: boolean; loginItemSupported: boolean } {
  if (process.platform === 'linux') {
    return { startAtLogin: existsSync(linuxAutostartFile(process.env)), loginItemSupported: true };
  }
  return { startAtLogin: app.getLoginItemSettings().openAtLogin, loginItemSupported: true };
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
  app.setLoginItemSettings({ openAtLogin: enabled, args: ['--hidden'] });
}

function trayIcon(health: ReturnType<typeof trayHealth>): NativeImage {
  const icons = app.isPackaged
    ? join(process.resourcesPath, 'icons')
    : join(import.meta.dirname, '../../build/icons');
  if (process.platform === 'darwin') {
    const image = nativeImage.createFromPath(join(icons, 'trayTemplate.png'));
    image.setTemplateImage(true);
    return image;
  }
  return nativeImage.createFromPath(join(icons, `tray-${health}.png`));
}

function toMenu(items: TrayItem[]): MenuItemConstructorOptions[] {
  return items.map((item): MenuItemConstructorOptions => {
    if (item.kind === 'separator') return { type: 'separator' };
    const { action } = item;
    return {
      label: item.label,
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
