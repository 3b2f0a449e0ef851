import type { IncomingMessage } from 'node:http';
import type { ApprovalPreview, ToolChange } from '../../../shared/api.ts';
import { displayText } from '../../../shared/display-text.ts';
import type { ServerOrigin } from '../../../shared/schema/state.ts';
import type { StatusReport } from '../../../shared/status.ts';
import { UiRoutes, type ApprovalView } from '../../../shared/ui-api.ts';
import type { Keychain } from '../secrets/keychain.ts';
import type { ServerEntry } from '../server-entry.ts';
import type { AppStateStore } from '../trust/app-state.ts';
import { describeLaunch } from '../trust/command-line.ts';
import { startBlockers } from '../trust/start-blockers.ts';

/**
 * What the approval routes use of the core: which servers wait for a decision, what approving each
 * would allow now (and what was approved before), and the tool changes waiting to be accepted.
 */
export interface ApprovalRoutesCore {
  readonly state: Pick<AppStateStore, 'approval'>;
  readonly status: { report(): Pick<StatusReport, 'servers'> };
  readonly servers: {
    entries(): ReadonlyMap<string, ServerEntry>;
    originOf(name: string): ServerOrigin;
    ownFolder(name: string): string;
  };
  readonly approvals: {
    reviewNow(name: string): { preview: ApprovalPreview } | { resolving: true } | { error: string };
  };
  readonly sandbox: { access(name: string): string[] };
  readonly tools: { toolChanges(): ToolChange[] };
}

/**
 * GET /api/approvals (every server waiting for a trust decision, with what approving it would allow)
 * and GET /api/tool-changes. `handle` answers undefined for what it does not own.
 */
export function createApprovalRoutes(core: ApprovalRoutesCore, keychain: Pick<Keychain, 'list'>) {
  async function handle(req: IncomingMessage, path: string): Promise<object | undefined> {
    if ((req.method ?? 'GET') !== 'GET') return undefined;
    if (path === UiRoutes.approvals) return { approvals: await approvals() };
    if (path === UiRoutes.toolChanges) return { changes: core.tools.toolChanges() };
    return undefined;
  }

  /**
   * Every server waiting for a trust decision, at once: a package run whose package is not resolved
   * yet is listed as resolving (nothing it shows can be approved) while its registry is asked in the
   * background, and an `approval` event tells the UI to ask again once it is in.
   */
  async function approvals(): Promise<ApprovalView[]> {
    const waiting = core.status
      .report()
      .servers.filter((s) => s.state === 'pending-approval' || s.state === 'denied');
    // One keychain listing (names only) for every card of this answer, asked only if a card needs it.
    let names: Promise<string[]> | undefined;
    const listed = { list: () => (names ??= keychain.list()) };
    const views = await Promise.all(
      waiting.map((status) =>
        approvalView(status.name, status.state === 'denied' ? 'denied' : 'pending-approval', listed),
      ),
    );
    return views.filter((v) => v !== undefined);
  }

  async function approvalView(
    name: string,
    state: ApprovalView['state'],
    listed: Pick<Keychain, 'list'>,
  ): Promise<ApprovalView | undefined> {
    if (!core.servers.entries().get(name)) return undefined;
    // What approving allows now (the command looked up again), and the fingerprint to approve it by.
    const now = core.approvals.reviewNow(name);
    const shown = 'preview' in now ? now.preview : undefined;
    const packageError = 'error' in now ? displayText(now.error) : null;
    const entry = core.servers.entries().get(name);
    if (!entry) return undefined;
    const launch = { ...entry.launch, package: undefined };
    const previous = core.state.approval(name);
    const record = launch.transport === 'http' ? launch.headers : launch.env;
    return {
      name,
      state,
      ...(shown ? { source: shown.source, edits: shown.edits } : core.servers.originOf(name)),
      fingerprint: shown?.fingerprint ?? entry.fingerprint,
      lines: shown?.lines ?? describeLaunch(launch, core.servers.ownFolder(name)),
      references: shown?.references ?? [],
      access: shown?.access ?? core.sandbox.access(name),
      // Looked at for every card, also while its package resolves: a missing program or secret.
      // (a project server's values not given yet: its origin's `needs` asks for them in its words)
      willNotStart: await startBlockers(
        entry,
        listed,
        undefined,
        shown?.origin?.needs.map((n) => n.secret),
      ),
      launch,
      envKeys: Object.keys(record ?? {}).map(displayText),
      package: shown?.package ?? null,
      packageNote: shown?.packageNote ?? null,
      packageError,
      resolving: 'resolving' in now,
      approved: previous
        ? {
            lines: describeLaunch({ ...previous.config, package: undefined }, core.servers.ownFolder(name)),
            approvedAt: previous.approvedAt,
            source: previous.source,
          }
        : null,
      // A project's server: which repository file said it (its path is the repository's words).
      ...(shown?.origin
        ? {
            origin: {
              ...shown.origin,
              dir: displayText(shown.origin.dir),
              file: displayText(shown.origin.file),
            },
          }
        : {}),
    };
  }

  return { handle };
}
