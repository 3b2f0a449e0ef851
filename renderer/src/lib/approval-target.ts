import type { ServerState } from '../../../shared/status.ts';
import type { ApprovalView } from '../../../shared/ui-api.ts';

/**
 * What became of the server a deep link (`#/approvals/NAME`) points at: a desktop notification or an
 * install link may be clicked long after it was shown, when the approval was already decided.
 */
export type ApprovalTarget =
  | { kind: 'pending' }
  | { kind: 'denied' }
  /** approved, but its tools changed since they were pinned: that change waits */
  | { kind: 'tools' }
  /** no longer waiting: approved (or disabled, stopped…) and now in this state */
  | { kind: 'decided'; state: ServerState }
  /** no server of that name in servers.json any more */
  | { kind: 'gone' };

export function approvalTarget(
  name: string,
  approvals: readonly ApprovalView[],
  servers: readonly { name: string; state: ServerState }[],
  /** servers whose changed tools wait for a decision */
  toolChanges: readonly string[] = [],
): ApprovalTarget {
  const approval = approvals.find((a) => a.name === name);
  if (approval) return { kind: approval.state === 'denied' ? 'denied' : 'pending' };
  if (toolChanges.includes(name)) return { kind: 'tools' };
  const server = servers.find((s) => s.name === name);
  // The status may already say pending while the approvals list has not caught up: still waiting.
  if (server?.state === 'pending-approval') return { kind: 'pending' };
  if (server?.state === 'denied') return { kind: 'denied' };
  return server ? { kind: 'decided', state: server.state } : { kind: 'gone' };
}
