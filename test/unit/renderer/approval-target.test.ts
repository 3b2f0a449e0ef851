import { describe, expect, it } from 'vitest';
import type { ApprovalView } from '../../../shared/ui-api.ts';
import { approvalTarget } from '../../../renderer/src/lib/approval-target.ts';
import { href, parseRoute } from '../../../renderer/src/lib/route.ts';

function approval(name: string, state: ApprovalView['state']): ApprovalView {
  return {
    name,
    state,
    source: 'install-link',
    edits: [],
    fingerprint: `fp-${name}`,
    lines: ['command: npx -y pkg'],
    references: [],
    access: [],
    launch: { transport: 'stdio', command: '/usr/bin/npx', args: ['-y', 'pkg'] },
    envKeys: [],
    package: null,
    packageNote: null,
    willNotStart: [],
    packageError: null,
    resolving: false,
    approved: null,
  };
}

describe('approval deep links (#/approvals/NAME from notifications and install links)', () => {
  it('keeps the server in the route, decoded, and makes the same link back', () => {
    expect(parseRoute('#/approvals/github')).toEqual({ view: 'approvals', server: 'github' });
    expect(parseRoute('#/approvals/my%20server')).toEqual({ view: 'approvals', server: 'my server' });
    expect(parseRoute('#/approvals')).toEqual({ view: 'approvals' });
    expect(href({ view: 'approvals', server: 'my server' })).toBe('#/approvals/my%20server');
    expect(href({ view: 'approvals' })).toBe('#/approvals');
    expect(parseRoute(href({ view: 'approvals', server: 'a_b-1' }))).toEqual({
      view: 'approvals',
      server: 'a_b-1',
    });
  });

  it('says what became of the server when it no longer waits', () => {
    const approvals = [approval('github', 'pending-approval'), approval('old', 'denied')];
    const servers = [
      { name: 'github', state: 'pending-approval' as const },
      { name: 'old', state: 'denied' as const },
      { name: 'everything', state: 'running' as const },
      { name: 'fresh', state: 'pending-approval' as const },
    ];
    expect(approvalTarget('github', approvals, servers)).toEqual({ kind: 'pending' });
    expect(approvalTarget('old', approvals, servers)).toEqual({ kind: 'denied' });
    expect(approvalTarget('everything', approvals, servers)).toEqual({ kind: 'decided', state: 'running' });
    expect(approvalTarget('removed', approvals, servers)).toEqual({ kind: 'gone' });
    // The live status got there before the approvals list was refetched: it still waits.
    expect(approvalTarget('fresh', approvals, servers)).toEqual({ kind: 'pending' });
  });
});
