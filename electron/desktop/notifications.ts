import type { ApprovalPreview, ToolChange } from '../../shared/api.ts';
import { displayText } from '../../shared/display-text.ts';
import type { StatusReport } from '../../shared/status.ts';
import { changeWhat, toolChangeLines } from './tool-change-summary.ts';

export interface ApprovalNotification {
  server: string;
  fingerprint: string;
  title: string;
  body: string;
  /** action buttons, only where the OS offers them (macOS); elsewhere a click opens the approval */
  actions: ('Approve' | 'Deny')[];
}

/**
 * Which approval notifications to raise now: one per server that newly became pending (or whose
 * config changed while pending), never twice for the same config. Returns the updated memory.
 */
export function approvalNotifications(
  report: StatusReport,
  notified: ReadonlyMap<string, string>,
  describe: (server: string) => string,
  platform: NodeJS.Platform,
): { raise: ApprovalNotification[]; notified: Map<string, string> } {
  const next = new Map<string, string>();
  const raise: ApprovalNotification[] = [];
  for (const s of report.servers) {
    if (s.state !== 'pending-approval') continue;
    next.set(s.name, s.fingerprint);
    if (notified.get(s.name) === s.fingerprint) continue;
    raise.push({
      server: s.name,
      fingerprint: s.fingerprint,
      title: `Approve MCP server "${s.name}"?`,
      body: describe(s.name),
      actions: platform === 'darwin' ? ['Approve', 'Deny'] : [],
    });
  }
  return { raise, notified: next };
}

/**
 * What an approval notification says (its Approve button approves exactly this): the command line,
 * then for a package-run server the package, exact version and date, dependencies, install scripts
 * and what changed since the approved version, then the secrets and env it passes on. Every line is
 * the preview's, already display-safe.
 */
export function approvalBody(preview: ApprovalPreview): string {
  return approvalSummary(preview).join('\n');
}

/**
 * approvalBody's lines; `launch: 'all'` (the tray menu, which has the room) gives every line of the
 * launch config (cwd, env) rather than the command line alone.
 */
export function approvalSummary(
  preview: ApprovalPreview,
  { launch }: { launch: 'first' | 'all' } = { launch: 'first' },
): string[] {
  const pkg = preview.package;
  const packageLines = pkg
    ? [
        ...pkg.lines.filter(
          (line) => !line.startsWith('runs from the store:') && !line.startsWith('pinned:'),
        ),
        ...(pkg.changes ? ['changed: ' + pkg.changes.join('; ')] : []),
        ...pkg.notes.filter((note) => note.startsWith('signature:')),
      ]
    : [];
  // Its sandbox: what it may write and reach, or "NOT sandboxed …" (docs/decisions/sandbox.md).
  const [first, ...rest] = preview.access;
  const sandbox =
    first === undefined
      ? []
      : first.startsWith('NOT sandboxed')
        ? [first]
        : [first, ...rest.filter((line) => line.startsWith('network:'))];
  const launchLines = launch === 'all' ? preview.lines : preview.lines.slice(0, 1);
  return [
    ...(launchLines.length ? launchLines : [preview.name]),
    ...preview.willNotStart,
    // A project server's values not given yet: approving is possible, starting is not (the card takes them).
    ...(preview.origin?.needs ?? []).map(
      (n) => `WILL NOT START until you give it a value for ${displayText(n.request)} (on its approval card)`,
    ),
    ...packageLines,
    ...(preview.packageNote ? [preview.packageNote] : []),
    ...sandbox,
    ...preview.references,
  ];
}

export interface ToolChangeNotification {
  server: string;
  /** the change shown: Accept accepts exactly this, a later change is refused */
  change: string;
  title: string;
  body: string;
  /** action buttons where the OS offers them (macOS); elsewhere a click opens the review */
  actions: ('Accept' | 'Review')[];
}

/**
 * Which notifications about changed tools, prompts or instructions to raise now: one per server whose
 * pinned ones changed in a way not notified yet (never twice for the same change). The body says what
 * changed, one by one, and that those wait. Returns the updated memory.
 */
export function toolChangeNotifications(
  changes: readonly ToolChange[],
  notified: ReadonlyMap<string, string>,
  platform: NodeJS.Platform,
): { raise: ToolChangeNotification[]; notified: Map<string, string> } {
  const next = new Map<string, string>();
  const raise: ToolChangeNotification[] = [];
  for (const change of changes) {
    next.set(change.server, change.change);
    if (notified.get(change.server) === change.change) continue;
    const { words, held } = changeWhat(change);
    raise.push({
      server: change.server,
      change: change.change,
      title: `${words.charAt(0).toUpperCase()}${words.slice(1)} of "${change.server}" changed`,
      body: [
        ...toolChangeLines(change, 5),
        `${held === 1 ? 'It is' : `These ${held} are`} held back from your editors until you accept.`,
      ].join('\n'),
      actions: platform === 'darwin' ? ['Accept', 'Review'] : [],
    });
  }
  return { raise, notified: next };
}

export interface SignInNotification {
  server: string;
  title: string;
  body: string;
  /** action buttons, only where the OS offers them (macOS); elsewhere a click starts the sign-in */
  actions: 'Sign in'[];
}

/**
 * Which "needs you to sign in" notifications to raise now: one per server that newly waits for a
 * sign-in, never twice while it keeps waiting (it may again after it ran in between). Returns the
 * updated memory: the servers waiting now.
 */
export function signInNotifications(
  report: StatusReport,
  notified: ReadonlySet<string>,
  platform: NodeJS.Platform,
): { raise: SignInNotification[]; notified: Set<string> } {
  const next = new Set<string>();
  const raise: SignInNotification[] = [];
  for (const s of report.servers) {
    if (s.state !== 'needs-sign-in') continue;
    next.add(s.name);
    if (notified.has(s.name)) continue;
    raise.push({
      server: s.name,
      title: `${s.name} needs you to sign in`,
      body: `Editors cannot use ${s.name} until you sign in to it. ${platform === 'darwin' ? 'Sign in' : 'Click to sign in'} in your browser.`,
      actions: platform === 'darwin' ? ['Sign in'] : [],
    });
  }
  return { raise, notified: next };
}

/** A folder an editor works in, offered as a project (projects/project-offers.ts). */
export interface OfferedFolder {
  dir: string;
  files: readonly string[];
}

/**
 * Which "add it as a project?" notifications to raise now: one per folder newly offered, never twice
 * for the same folder. Switchboard only asks: adding is the person's click in the window.
 */
export function projectOfferNotifications(
  offers: readonly OfferedFolder[],
  notified: ReadonlySet<string>,
): { raise: { dir: string; title: string; body: string }[]; notified: Set<string> } {
  const next = new Set(offers.map((o) => o.dir));
  const raise = offers
    .filter((o) => !notified.has(o.dir))
    .map((o) => ({
      dir: o.dir,
      title: 'Add a project?',
      body: projectOfferText(o),
    }));
  return { raise, notified: next };
}

/** "Folder X has MCP servers in .mcp.json — add it as a project?" */
export function projectOfferText(offer: OfferedFolder): string {
  return `Folder ${offer.dir} has MCP servers in ${offer.files.join(', ')} — add it as a project?`;
}
