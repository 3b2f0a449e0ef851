import { describe, expect, it } from 'vitest';
import { approvalNotifications, signInNotifications } from '../../../electron/desktop/notifications.ts';
import { ApprovalPreviews, PREVIEW_RETRY_MS } from '../../../electron/desktop/approval-previews.ts';
import {
  buildTrayMenu,
  menuLabel,
  showWindowAtStart,
  trayAppearance,
  trayHealth,
  trayTooltip,
  type TrayItem,
} from '../../../electron/desktop/tray-menu.ts';
import type { ApprovalPreview } from '../../../shared/api.ts';
import type { ServerStatus, StatusReport } from '../../../shared/status.ts';

function server(name: string, state: ServerStatus['state'], extra: Partial<ServerStatus> = {}): ServerStatus {
  return {
    name,
    state,
    transport: 'stdio',
    pid: null,
    restarts: 0,
    lastError: null,
    since: null,
    nextRetryAt: null,
    toolCount: null,
    fingerprint: `fp-${name}`,
    ...extra,
  };
}

function report(...servers: ServerStatus[]): StatusReport {
  return { live: true, configError: null, servers };
}

const labels = (items: TrayItem[]) => items.map((i) => i.label);
const options = { startAtLogin: false, loginItemSupported: true };

describe('tray health', () => {
  it('is idle with nothing, ok when all run, attention when approval waits, error when one fails', () => {
    expect(trayHealth(report())).toBe('idle');
    expect(trayHealth(report(server('a', 'running'), server('b', 'disabled')))).toBe('ok');
    expect(trayHealth(report(server('a', 'running'), server('b', 'pending-approval')))).toBe('attention');
    expect(trayHealth(report(server('a', 'pending-approval'), server('b', 'crash-loop')))).toBe('error');
    expect(trayHealth({ ...report(server('a', 'running')), configError: 'servers.json:1:1: bad' })).toBe(
      'error',
    );
    expect(trayTooltip(report(server('a', 'pending-approval'), server('b', 'pending-approval')))).toBe(
      'Switchboard: 2 waiting for approval',
    );
  });
});

describe('tray menu', () => {
  it('lists pending approvals with approve and deny, then servers with their states', () => {
    const menu = buildTrayMenu(
      report(
        server('gh', 'pending-approval'),
        server('everything', 'running'),
        server('db', 'crash-loop', { lastError: 'exited with code 1' }),
      ),
      options,
    );
    expect(labels(menu)).toEqual([
      'Switchboard: 1 server failing',
      '',
      'Waiting for approval (1)',
      'gh',
      '',
      'everything — running',
      'db — crashing',
      '',
      'Open Switchboard',
      'Sync editors now',
      'Start at login',
      '',
      'Quit Switchboard',
    ]);
    // Nothing known yet of what approving gh allows: no Approve in the menu, "Approve…" opens it.
    const gh = menu.find((i) => i.label === 'gh');
    expect(gh?.submenu?.map((i) => i.label)).toEqual([
      'Looking up exactly what it runs…',
      '',
      'Review in Switchboard…',
      'Approve…',
      'Deny',
    ]);
    expect(gh?.submenu?.map((i) => i.action)).toEqual([
      undefined,
      undefined,
      { type: 'open', view: 'approvals', server: 'gh' },
      { type: 'open', view: 'approvals', server: 'gh' },
      { type: 'deny', server: 'gh' },
    ]);
    const db = menu.find((i) => i.label === 'db — crashing');
    expect(db?.submenu?.[0]).toEqual({ label: 'exited with code 1', enabled: false });
    expect(db?.submenu?.some((i) => i.action?.type === 'start')).toBe(true);
  });

  it('shows the start-at-login state and hides it where the OS has no login items', () => {
    expect(
      buildTrayMenu(report(), { startAtLogin: true, loginItemSupported: true }).find(
        (i) => i.label === 'Start at login',
      ),
    ).toMatchObject({ kind: 'checkbox', checked: true });
    expect(labels(buildTrayMenu(report(), { startAtLogin: false, loginItemSupported: false }))).not.toContain(
      'Start at login',
    );
  });
});

describe('approval notifications', () => {
  const describeServer = (name: string) => `command: /usr/bin/npx -y ${name}`;

  it('notifies once per pending config, with buttons only on macOS', () => {
    const first = approvalNotifications(
      report(server('gh', 'pending-approval'), server('x', 'running')),
      new Map(),
      describeServer,
      'darwin',
    );
    expect(first.raise).toEqual([
      {
        server: 'gh',
        fingerprint: 'fp-gh',
        title: 'Approve MCP server "gh"?',
        body: 'command: /usr/bin/npx -y gh',
        actions: ['Approve', 'Deny'],
      },
    ]);
    const again = approvalNotifications(
      report(server('gh', 'pending-approval')),
      first.notified,
      describeServer,
      'darwin',
    );
    expect(again.raise).toEqual([]);
    const changed = approvalNotifications(
      report(server('gh', 'pending-approval', { fingerprint: 'fp-2' })),
      again.notified,
      describeServer,
      'linux',
    );
    expect(changed.raise).toMatchObject([{ server: 'gh', actions: [] }]);
  });

  it('forgets servers that are no longer pending, so a later change notifies again', () => {
    const seen = approvalNotifications(
      report(server('gh', 'pending-approval')),
      new Map(),
      describeServer,
      'linux',
    ).notified;
    const approved = approvalNotifications(report(server('gh', 'running')), seen, describeServer, 'linux');
    expect(approved.notified.size).toBe(0);
  });
});

describe('servers that need a sign-in', () => {
  it('ask for attention in the tray, each with a Sign in item', () => {
    const status = report(server('linear', 'needs-sign-in', { transport: 'http' }), server('x', 'running'));
    expect(trayHealth(status)).toBe('attention');
    expect(trayTooltip(status)).toBe('Switchboard: 1 waiting for you to sign in');
    expect(trayTooltip(report(server('gh', 'pending-approval'), server('linear', 'needs-sign-in')))).toBe(
      'Switchboard: 1 waiting for approval, 1 waiting for you to sign in',
    );
    const menu = buildTrayMenu(status, options);
    expect(labels(menu)).toEqual([
      'Switchboard: 1 waiting for you to sign in',
      '',
      'linear needs you to sign in',
      '',
      'x — running',
      '',
      'Open Switchboard',
      'Sync editors now',
      'Start at login',
      '',
      'Quit Switchboard',
    ]);
    expect(
      menu.find((i) => i.label === 'linear needs you to sign in')?.submenu?.map((i) => i.action),
    ).toEqual([
      { type: 'sign-in', server: 'linear' },
      { type: 'open', view: 'servers', server: 'linear' },
    ]);
  });

  it('raise one notification per wait: "linear needs you to sign in"', () => {
    const first = signInNotifications(report(server('linear', 'needs-sign-in')), new Set(), 'darwin');
    expect(first.raise).toEqual([
      {
        server: 'linear',
        title: 'linear needs you to sign in',
        body: 'Editors cannot use linear until you sign in to it. Sign in in your browser.',
        actions: ['Sign in'],
      },
    ]);
    expect(
      signInNotifications(report(server('linear', 'needs-sign-in')), first.notified, 'darwin').raise,
    ).toEqual([]);
    // Signed in, then signed out again later: a new wait, a new notification.
    const ran = signInNotifications(report(server('linear', 'running')), first.notified, 'linux');
    expect(ran.notified.size).toBe(0);
    expect(
      signInNotifications(report(server('linear', 'needs-sign-in')), ran.notified, 'linux').raise,
    ).toMatchObject([{ server: 'linear', actions: [], body: expect.stringContaining('Click to sign in') }]);
  });
});

describe('tray appearance', () => {
  it('colours the icon by health on Windows and Linux', () => {
    expect(trayAppearance('error', 'win32')).toEqual({ icon: 'tray-error.png', template: false, title: '' });
    expect(trayAppearance('attention', 'linux')).toEqual({
      icon: 'tray-attention.png',
      template: false,
      title: '',
    });
  });

  it('shows approval-needed and error as titles beside the macOS template icon', () => {
    const look = (health: Parameters<typeof trayAppearance>[0]) => trayAppearance(health, 'darwin');
    expect(look('idle')).toEqual({ icon: 'trayTemplate.png', template: true, title: '' });
    expect(look('ok').title).toBe('');
    expect(look('attention').title).toBe('!');
    expect(look('error').title).toBe('×');
    expect(look('error').template).toBe(true);
  });
});

describe('window at start', () => {
  it('opens unless started at login or by a link', () => {
    const start = { argv: ['app'], openedAtLogin: false, link: false, editorSyncNotice: false };
    expect(showWindowAtStart(start)).toBe(true);
    expect(showWindowAtStart({ ...start, argv: ['app', '--hidden'] })).toBe(false);
    expect(showWindowAtStart({ ...start, openedAtLogin: true })).toBe(false);
    expect(showWindowAtStart({ ...start, link: true })).toBe(false);
  });

  it('opens at login too while the first-run notice of editor sync is unread (a link opens it anyway)', () => {
    const start = { argv: ['app', '--hidden'], openedAtLogin: true, link: false, editorSyncNotice: true };
    expect(showWindowAtStart(start)).toBe(true);
    expect(showWindowAtStart({ ...start, link: true })).toBe(false);
  });
});

describe('tray approvals of what was shown', () => {
  const preview = (fingerprint: string): ApprovalPreview => ({
    name: 'gh',
    state: 'pending-approval',
    transport: 'stdio',
    source: 'hand-edit',
    edits: [],
    fingerprint,
    lines: ['command: /usr/bin/npx -y gh-mcp', 'cwd: /home/you'],
    references: [],
    access: [],
    package: null,
    packageNote: null,
    willNotStart: [],
  });

  it('approves the preview’s fingerprint (a resolved package), never the bare config’s', () => {
    const previews = new ApprovalPreviews();
    const waiting = report(server('gh', 'pending-approval'));
    expect(previews.wanted(waiting, 0)).toEqual([{ name: 'gh', fingerprint: 'fp-gh' }]);
    expect(previews.wanted(waiting, 1)).toEqual([]); // asked once per config
    previews.resolved('gh', 'fp-gh', preview('fp-resolved'));
    const gh = buildTrayMenu(waiting, options, [], (s) => previews.get(s.name, s.fingerprint)).find(
      (i) => i.label === 'gh',
    );
    expect(gh?.submenu?.slice(0, 2).map((i) => i.label)).toEqual([
      'command: /usr/bin/npx -y gh-mcp',
      'cwd: /home/you',
    ]);
    expect(gh?.submenu?.find((i) => i.label === 'Approve')?.action).toEqual({
      type: 'approve',
      server: 'gh',
      fingerprint: 'fp-resolved',
    });
  });

  it('drops an answer for a config that changed meanwhile, and asks again after a failure', () => {
    const previews = new ApprovalPreviews();
    previews.wanted(report(server('gh', 'pending-approval')), 0);
    const edited = report(server('gh', 'pending-approval', { fingerprint: 'fp-edited' }));
    expect(previews.wanted(edited, 1)).toEqual([{ name: 'gh', fingerprint: 'fp-edited' }]);
    previews.resolved('gh', 'fp-gh', preview('fp-old'));
    expect(previews.get('gh', 'fp-edited')).toEqual({ kind: 'pending' });
    previews.failed('gh', 'fp-edited', 'registry unreachable', 1);
    expect(previews.wanted(edited, 1 + PREVIEW_RETRY_MS - 1)).toEqual([]);
    expect(previews.wanted(edited, 1 + PREVIEW_RETRY_MS)).toHaveLength(1);
  });

  it('shows "&" in a label as itself, not as a keyboard mnemonic', () => {
    expect(menuLabel('command: sh -c a && b')).toBe('command: sh -c a &&&& b');
  });
});

describe('tray: what the sandbox refused (issue 33 item 3)', () => {
  it('shows the refusal on the server and offers its one-step grant, which asks approval', () => {
    const menu = buildTrayMenu(
      report(
        server('pw', 'running', {
          sandboxRefused: 'sandbox refused writing ~/.cache/ms-playwright: add it to sandbox.write',
          sandboxGrant: {
            path: '/home/ada/.cache/ms-playwright',
            access: 'write',
            command: 'switchboard grant pw write /home/ada/.cache/ms-playwright',
          },
        }),
      ),
      options,
    );
    const pw = menu.find((i) => i.label === 'pw — running');
    expect(pw?.submenu?.slice(0, 2)).toEqual([
      { label: 'sandbox refused writing ~/.cache/ms-playwright: add it to sandbox.write', enabled: false },
      {
        label: 'Allow writing it (asks approval)',
        action: { type: 'grant', server: 'pw', path: '/home/ada/.cache/ms-playwright', access: 'write' },
      },
    ]);
  });
});
