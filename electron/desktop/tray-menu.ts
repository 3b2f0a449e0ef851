import type { ToolChange } from '../../shared/api.ts';
import { heldBack, type ServerStatus, type StatusReport } from '../../shared/status.ts';
import { wordList } from '../../shared/word-list.ts';
import type { KnownPreview } from './approval-previews.ts';
import { approvalSummary } from './notifications.ts';
import { toolChangeLines } from './tool-change-summary.ts';

/** What the tray icon shows at a glance. */
export type TrayHealth = 'idle' | 'ok' | 'attention' | 'error';

export type TrayAction =
  | { type: 'open'; view?: string; server?: string }
  /** approves the config whose fingerprint the menu was built with, not a later one */
  | { type: 'approve'; server: string; fingerprint: string }
  | { type: 'sign-in'; server: string }
  | { type: 'deny'; server: string }
  /** the one-step grant status offered for what the sandbox refused (the server then waits for approval) */
  | { type: 'grant'; server: string; path: string; access: 'read' | 'write' }
  /** accepts the change to the server's tools the menu was built with, not a later one */
  | { type: 'accept-tools'; server: string; change: string }
  | { type: 'start'; server: string }
  | { type: 'restart'; server: string }
  | { type: 'stop'; server: string }
  | { type: 'sync' }
  /** writes the `switchboard` command on PATH (electron/desktop/cli-command.ts) */
  | { type: 'install-cli' }
  | { type: 'toggle-start-at-login' }
  | { type: 'quit' };

/** A menu item as plain data: the shell turns it into an Electron MenuItem with a click handler. */
export interface TrayItem {
  label: string;
  kind?: 'normal' | 'separator' | 'checkbox';
  enabled?: boolean;
  checked?: boolean;
  action?: TrayAction;
  submenu?: TrayItem[];
}

const FAILING: ReadonlySet<ServerStatus['state']> = new Set(['error', 'crash-loop', 'backoff']);
const STATE_WORDS: Record<ServerStatus['state'], string> = {
  'pending-approval': 'needs approval',
  denied: 'denied',
  disabled: 'disabled',
  stopped: 'stopped',
  idle: 'idle (starts when used)',
  starting: 'starting…',
  running: 'running',
  backoff: 'restarting',
  'crash-loop': 'crashing',
  'needs-sign-in': 'needs you to sign in',
  error: 'error',
};

/** Servers ready for editors: running, or idle (they start at the first request). */
const READY: ReadonlySet<ServerStatus['state']> = new Set(['running', 'idle']);

/** Waiting for the person: an approval or a sign-in. */
const WAITING: ReadonlySet<ServerStatus['state']> = new Set(['pending-approval', 'needs-sign-in']);

/**
 * Error beats waiting for the person (an approval, a sign-in, changed tools) beats all-ready; no
 * server running or idle is idle.
 */
export function trayHealth(report: StatusReport): TrayHealth {
  if (report.configError || report.servers.some((s) => FAILING.has(s.state))) return 'error';
  if (report.servers.some((s) => WAITING.has(s.state) || heldBack(s).length > 0)) return 'attention';
  return report.servers.some((s) => READY.has(s.state)) ? 'ok' : 'idle';
}

/** tools, then prompts, then instructions: the order heldBack gives them in. */
const PART_ORDER = ['tools', 'prompts', 'instructions'];
const byPart = (a: string, b: string) => PART_ORDER.indexOf(a) - PART_ORDER.indexOf(b);

export function trayTooltip(report: StatusReport): string {
  const health = trayHealth(report);
  const pending = report.servers.filter((s) => s.state === 'pending-approval').length;
  const changedServers = report.servers.filter((s) => heldBack(s).length > 0);
  const changed = changedServers.length;
  const what = wordList([...new Set(changedServers.flatMap(heldBack))].sort(byPart));
  const signIns = report.servers.filter((s) => s.state === 'needs-sign-in').length;
  const failing = report.servers.filter((s) => FAILING.has(s.state)).length;
  const running = report.servers.filter((s) => s.state === 'running').length;
  const idle = report.servers.filter((s) => s.state === 'idle').length;
  if (report.configError) return 'Switchboard: servers.json has errors';
  if (health === 'error') return `Switchboard: ${failing} server${failing === 1 ? '' : 's'} failing`;
  if (health === 'attention') {
    const parts = [
      ...(pending ? [`${pending} waiting for approval`] : []),
      ...(signIns ? [`${signIns} waiting for you to sign in`] : []),
      ...(changed ? [`${what} of ${changed} server${changed === 1 ? '' : 's'} changed`] : []),
    ];
    return `Switchboard: ${parts.join(', ')}`;
  }
  if (health === 'ok') return `Switchboard: ${running} running${idle ? `, ${idle} idle` : ''}`;
  return 'Switchboard: no servers running';
}

/**
 * The tray menu, built from core state alone (rebuilt by the shell on every change): `toolChanges`
 * are the servers whose tools, prompts or instructions changed since they were pinned (Core.toolChanges()),
 * and `previews` what approving each waiting server allows, as far as it is known (ApprovalPreviews).
 */
export function buildTrayMenu(
  report: StatusReport,
  options: {
    startAtLogin: boolean;
    loginItemSupported: boolean;
    /** the offer of the `switchboard` command (cliMenuLabel), when there is one to make */
    cliCommand?: string | undefined;
  },
  toolChanges: readonly ToolChange[] = [],
  previews: (server: ServerStatus) => KnownPreview | undefined = () => undefined,
): TrayItem[] {
  const items: TrayItem[] = [{ label: trayTooltip(report), enabled: false }];
  if (report.configError)
    items.push({ label: 'Fix servers.json…', action: { type: 'open', view: 'servers' } });

  const pending = report.servers.filter((s) => s.state === 'pending-approval');
  if (pending.length > 0) {
    items.push({ label: '', kind: 'separator' });
    items.push({ label: `Waiting for approval (${pending.length})`, enabled: false });
    for (const s of pending) items.push({ label: s.name, submenu: approvalSubmenu(s, previews(s)) });
  }

  if (toolChanges.length > 0) {
    items.push({ label: '', kind: 'separator' });
    items.push({ label: `Changed since approved (${toolChanges.length})`, enabled: false });
    for (const change of toolChanges) {
      items.push({
        label: change.server,
        submenu: [
          // What changed, so that Accept is a decision about something seen.
          ...toolChangeLines(change).map((line): TrayItem => ({ label: line, enabled: false })),
          { label: '', kind: 'separator' },
          {
            label: 'Review in Switchboard…',
            action: { type: 'open', view: 'approvals', server: change.server },
          },
          {
            label: 'Accept these changes',
            action: { type: 'accept-tools', server: change.server, change: change.change },
          },
        ],
      });
    }
  }

  const signIns = report.servers.filter((s) => s.state === 'needs-sign-in');
  if (signIns.length > 0) {
    items.push({ label: '', kind: 'separator' });
    for (const s of signIns) {
      items.push({
        label: `${s.name} needs you to sign in`,
        submenu: [
          { label: 'Sign in…', action: { type: 'sign-in', server: s.name } },
          { label: 'Details…', action: { type: 'open', view: 'servers', server: s.name } },
        ],
      });
    }
  }

  const others = report.servers.filter((s) => !WAITING.has(s.state));
  if (others.length > 0) {
    items.push({ label: '', kind: 'separator' });
    for (const s of others)
      items.push({ label: `${s.name} — ${STATE_WORDS[s.state]}`, submenu: serverSubmenu(s) });
  }

  items.push({ label: '', kind: 'separator' });
  items.push({ label: 'Open Switchboard', action: { type: 'open' } });
  items.push({ label: 'Sync editors now', action: { type: 'sync' } });
  if (options.cliCommand) items.push({ label: options.cliCommand, action: { type: 'install-cli' } });
  if (options.loginItemSupported) {
    items.push({
      label: 'Start at login',
      kind: 'checkbox',
      checked: options.startAtLogin,
      action: { type: 'toggle-start-at-login' },
    });
  }
  items.push({ label: '', kind: 'separator' });
  items.push({ label: 'Quit Switchboard', action: { type: 'quit' } });
  return items;
}

/**
 * A waiting server: what approving it allows (the preview's lines: its command, the package resolved
 * for it, its sandbox, the secrets it gets) and an Approve bound to exactly that preview. While the
 * preview is not in (a package being resolved at its registry) or could not be made, there is nothing
 * shown to approve: "Approve…" opens its approval in the window, where the resolution appears.
 */
function approvalSubmenu(s: ServerStatus, known: KnownPreview | undefined): TrayItem[] {
  const review: TrayItem = {
    label: 'Review in Switchboard…',
    action: { type: 'open', view: 'approvals', server: s.name },
  };
  const deny: TrayItem = { label: 'Deny', action: { type: 'deny', server: s.name } };
  if (known?.kind === 'ready') {
    const preview = known.preview;
    return [
      ...approvalSummary(preview, { launch: 'all' }).map((line): TrayItem => ({
        label: line,
        enabled: false,
      })),
      { label: '', kind: 'separator' },
      review,
      { label: 'Approve', action: { type: 'approve', server: s.name, fingerprint: preview.fingerprint } },
      deny,
    ];
  }
  return [
    {
      label:
        known?.kind === 'failed'
          ? `Cannot show what it runs here: ${known.message}`
          : 'Looking up exactly what it runs…',
      enabled: false,
    },
    { label: '', kind: 'separator' },
    review,
    { label: 'Approve…', action: { type: 'open', view: 'approvals', server: s.name } },
    deny,
  ];
}

/**
 * A label as the menu shows it: "&" marks a keyboard mnemonic in Electron's menus (Windows, Linux;
 * dropped on macOS), so every "&" of a command line or a name is doubled to be shown as it is.
 */
export function menuLabel(text: string): string {
  return text.replaceAll('&', '&&');
}

function serverSubmenu(s: ServerStatus): TrayItem[] {
  const items: TrayItem[] = [
    { label: 'Details…', action: { type: 'open', view: 'servers', server: s.name } },
  ];
  if (s.lastError) items.unshift({ label: s.lastError.slice(0, 120), enabled: false });
  if (s.sandboxRefused && s.state !== 'pending-approval') {
    items.unshift({ label: s.sandboxRefused.slice(0, 120), enabled: false });
    const grant = s.sandboxGrant;
    if (grant)
      items.splice(1, 0, {
        label: `${grant.access === 'write' ? 'Allow writing' : 'Allow reading'} it (asks approval)`,
        action: { type: 'grant', server: s.name, path: grant.path, access: grant.access },
      });
  }
  if (s.state === 'running' || s.state === 'starting' || s.state === 'backoff') {
    items.push({ label: 'Restart', action: { type: 'restart', server: s.name } });
    items.push({ label: 'Stop', action: { type: 'stop', server: s.name } });
  } else if (s.state === 'idle') {
    // Stop means "not even on request" (stopped is the person's choice); Start runs it now.
    items.push({ label: 'Start now', action: { type: 'start', server: s.name } });
    items.push({ label: 'Stop', action: { type: 'stop', server: s.name } });
  } else if (s.state === 'stopped' || s.state === 'crash-loop' || s.state === 'error') {
    items.push({ label: 'Start', action: { type: 'start', server: s.name } });
  }
  return items;
}

/** The tray icon file (in build/icons), whether it is a macOS template image, and the title beside it. */
export interface TrayAppearance {
  icon: string;
  template: boolean;
  title: string;
}

/**
 * Windows and Linux show health by colour (tray-<health>.png). The macOS menu bar wants one
 * monochrome template image the OS tints, so there health shows as a short title beside it: "!"
 * when a server waits for approval, "×" when one is failing or servers.json has errors.
 */
export function trayAppearance(health: TrayHealth, platform: NodeJS.Platform): TrayAppearance {
  if (platform !== 'darwin') return { icon: `tray-${health}.png`, template: false, title: '' };
  const title = health === 'error' ? '×' : health === 'attention' ? '!' : '';
  return { icon: 'trayTemplate.png', template: true, title };
}

/**
 * Whether the window opens when the app starts: not when started at login (`--hidden` on Windows
 * and Linux; macOS login items pass no arguments but say so) and not when a link decides what to show
 * — except while the first-run notice of editor sync is unread: which editors' files Switchboard
 * writes is said before the first approval writes them, however the app was started.
 */
export function showWindowAtStart(start: {
  argv: readonly string[];
  openedAtLogin: boolean;
  link: boolean;
  editorSyncNotice: boolean;
}): boolean {
  if (start.link) return false;
  return start.editorSyncNotice || (!start.openedAtLogin && !start.argv.includes('--hidden'));
}
