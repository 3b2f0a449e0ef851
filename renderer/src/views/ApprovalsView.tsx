import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState, type Ref, type RefObject } from 'react';
import type { z } from 'zod';
import type { ServerSourceSchema, SwitchboardEdit } from '../../../shared/schema/state.ts';
import type { ToolChange } from '../../../shared/api.ts';
import { wordList } from '../../../shared/word-list.ts';
import { UiApiError, type ApprovalView } from '../../../shared/ui-api.ts';
import { useApi } from '../api/context.tsx';
import { useApprovals, useCommand, useStatus, useToolChanges } from '../api/hooks.ts';
import { keys } from '../api/keys.ts';
import { AccessParts, PackageParts, ReferenceParts } from '../components/ApprovalParts.tsx';
import { ApprovalProjectValues } from '../components/ApprovalProjectValues.tsx';
import { Diff } from '../components/Diff.tsx';
import { UpdatesSection } from '../components/PackageUpdates.tsx';
import { SignInButton } from '../components/SignIn.tsx';
import { EmptyState, ErrorText, Loading } from '../components/Feedback.tsx';
import { stateLabel } from '../components/StateBadge.tsx';
import { ViewTitle } from '../components/ViewTitle.tsx';
import { approvalTarget, type ApprovalTarget } from '../lib/approval-target.ts';
import { formatDateTime } from '../lib/format.ts';
import { href } from '../router.ts';

const SOURCES: Record<z.infer<typeof ServerSourceSchema>, string> = {
  'hand-edit': 'servers.json (edited by hand or by another program)',
  cli: 'the switchboard command line',
  import: 'imported from an editor’s config',
  'install-link': 'an install link',
  catalog: 'the Catalog (the MCP Registry)',
  ui: 'this window (added or changed here)',
};

/** What Switchboard changed in an entry at the person's command, after its source wrote it. */
const EDITS: Record<SwitchboardEdit, string> = {
  'sandbox-grant': 'a path added to its sandbox (Grant, or switchboard grant)',
  'secret-move': 'a pasted secret moved to the keychain',
};

/**
 * Every server waiting for a trust decision. `server` (from `#/approvals/NAME`, which desktop
 * notifications and install links open) is brought into view and focused, or, when it no longer
 * waits, the view says what became of it.
 */
export default function ApprovalsView({ server }: { server?: string | undefined }) {
  const approvals = useApprovals();
  const toolChanges = useToolChanges();
  const status = useStatus();
  const pending = approvals.data?.filter((a) => a.state === 'pending-approval') ?? [];
  const denied = approvals.data?.filter((a) => a.state === 'denied') ?? [];
  const changes = toolChanges.data ?? [];
  const signIns = status.data?.servers.filter((s) => s.state === 'needs-sign-in') ?? [];
  // A cached list may be out of date (a server added since); it is refetched on mount. Deciding from
  // it would point at a card that then moves, or say "no longer waiting" about a server that waits.
  const current =
    (approvals.isFetchedAfterMount || !approvals.isStale) &&
    (toolChanges.isFetchedAfterMount || !toolChanges.isStale);
  const target =
    server !== undefined && approvals.data && toolChanges.data && current && status.data
      ? approvalTarget(
          server,
          approvals.data,
          status.data.servers,
          toolChanges.data.map((c) => c.server),
        )
      : undefined;
  const notice = useRef<HTMLDivElement>(null);
  useBringIntoView(server, target?.kind, notice);
  const changed = useChangedWhileShown(approvals.data);
  // What the person decided in this view: the card leaves, and the notice then says "you approved it",
  // not that someone else had decided it already.
  const [decidedHere, setDecidedHere] = useState<ReadonlyMap<string, 'approved' | 'denied'>>(new Map());
  const onDecided = (name: string, how: 'approved' | 'denied') =>
    setDecidedHere((before) => new Map(before).set(name, how));
  const approvalCard = (a: ApprovalView) => (
    <ApprovalCard
      key={`${a.name}:${a.fingerprint}`}
      approval={a}
      targeted={a.name === server}
      changedWhileShown={changed.has(`${a.name}:${a.fingerprint}`)}
      onDecided={onDecided}
    />
  );
  return (
    <section>
      <ViewTitle>Approvals</ViewTitle>
      <p className="muted">
        Nothing runs until you approve its exact launch configuration. Any later change to what runs asks
        again.
      </p>
      {server !== undefined && target && target.kind !== 'pending' && target.kind !== 'tools' ? (
        <TargetNotice ref={notice} name={server} target={target} decidedHere={decidedHere.get(server)} />
      ) : null}
      {approvals.isPending ? <Loading what="approvals" /> : null}
      {approvals.error ? <ErrorText error={approvals.error} /> : null}
      {toolChanges.error ? <ErrorText error={toolChanges.error} /> : null}
      {changes.length > 0 ? (
        <>
          <h2>Changed since you approved them</h2>
          <p className="muted">
            These servers now tell your AI something new or different from what you approved: tools, prompts
            or instructions. Your editors do not get it until you accept the change (they keep the
            instructions you approved); removed ones are simply gone.
          </p>
          {changes.map((c) => (
            <ToolChangeCard key={`${c.server}:${c.change}`} change={c} targeted={c.server === server} />
          ))}
        </>
      ) : null}
      {approvals.data && pending.length === 0 && signIns.length === 0 && changes.length === 0 ? (
        <EmptyState title="Nothing waits for approval">
          <p>
            When a server is added or its command, arguments, environment or URL change, it waits here before
            it runs. See all servers under <a href={href({ view: 'servers' })}>Servers</a>.
          </p>
        </EmptyState>
      ) : null}
      {pending.map(approvalCard)}
      {signIns.length > 0 ? (
        <>
          <h2>Waiting for you to sign in</h2>
          <p className="muted">
            These remote servers answer only after you sign in to them, in your browser. Switchboard keeps the
            sign-in in your keychain; editors never see it.
          </p>
          {signIns.map((s) => (
            <article
              key={s.name}
              className="card approval"
              aria-label={`Sign in to ${s.name}`}
              data-sign-in={s.name}
            >
              <header>
                <h2>
                  <a href={href({ view: 'server', name: s.name, tab: 'config' })}>{s.name}</a>
                </h2>
                <span className="muted">needs you to sign in</span>
              </header>
              <SignInButton name={s.name} />
            </article>
          ))}
        </>
      ) : null}
      <UpdatesSection />
      {denied.length > 0 ? (
        <>
          <h2>Denied</h2>
          <p className="muted">These stay stopped until you approve them or their configuration changes.</p>
          {denied.map(approvalCard)}
        </>
      ) : null}
    </section>
  );
}

/**
 * The cards (`name:fingerprint`) whose server showed another configuration earlier while this view
 * was open: a hand edit replaced the card under the person's eyes, or an approval was refused because
 * the config changed after it was shown. Such a card says so, so nobody approves it on autopilot.
 */
function useChangedWhileShown(approvals: readonly ApprovalView[] | undefined): ReadonlySet<string> {
  // Derived from earlier renders' lists, kept in state the way React documents for that.
  const [memory, setMemory] = useState<ShownMemory>(() => ({
    list: undefined,
    shown: new Map(),
    changed: new Set(),
  }));
  if (memory.list === approvals) return memory.changed;
  const shown = new Map(memory.shown);
  const changed = new Set(memory.changed);
  for (const a of approvals ?? []) {
    // A card still resolving its package (or that could not) has nothing to approve; its resolution
    // arriving is no change of configuration.
    if (a.resolving || a.packageError !== null) continue;
    const before = shown.get(a.name);
    if (before !== undefined && before !== a.fingerprint) changed.add(`${a.name}:${a.fingerprint}`);
    shown.set(a.name, a.fingerprint);
  }
  setMemory({ list: approvals, shown, changed });
  return changed;
}

interface ShownMemory {
  list: readonly ApprovalView[] | undefined;
  /** name → the fingerprint last shown */
  shown: Map<string, string>;
  changed: Set<string>;
}

/**
 * Once per linked server (not on every live update): scrolls its card into view and focuses it, so
 * keyboard and screen-reader users start there; a server that no longer waits gets the notice focused.
 */
function useBringIntoView(
  server: string | undefined,
  kind: ApprovalTarget['kind'] | undefined,
  notice: RefObject<HTMLDivElement | null>,
): void {
  const done = useRef<string | undefined>(undefined);
  useEffect(() => {
    if (server === undefined) {
      done.current = undefined;
      return;
    }
    if (kind === undefined || done.current === server) return;
    done.current = server;
    const card =
      kind === 'pending' || kind === 'denied'
        ? document.querySelector<HTMLElement>(`article[data-approval="${CSS.escape(server)}"]`)
        : kind === 'tools'
          ? document.querySelector<HTMLElement>(`article[data-tool-change="${CSS.escape(server)}"]`)
          : null;
    const element = card ?? notice.current;
    // A card taller than the window (a package's details) starts at its top, never cut above it.
    const tall = card !== null && card.getBoundingClientRect().height > window.innerHeight * 0.8;
    element?.scrollIntoView({ block: card ? (tall ? 'start' : 'center') : 'nearest' });
    element?.focus({ preventScroll: true });
  }, [server, kind, notice]);
}

function TargetNotice({
  ref,
  name,
  target,
  decidedHere,
}: {
  ref: Ref<HTMLDivElement>;
  name: string;
  target: Exclude<ApprovalTarget, { kind: 'pending' } | { kind: 'tools' }>;
  /** the person decided it on this page just now */
  decidedHere: 'approved' | 'denied' | undefined;
}) {
  const link = <a href={href({ view: 'server', name, tab: 'config' })}>{name}</a>;
  return (
    <div ref={ref} tabIndex={-1} className="banner info" role="status" data-testid="approval-notice">
      {decidedHere === 'approved' && target.kind === 'decided' ? (
        <span>
          <strong>You approved “{name}”.</strong> It is {stateLabel(target.state)} now. Open {link} to see it.
        </span>
      ) : decidedHere === 'denied' && target.kind === 'denied' ? (
        <span>
          <strong>You denied “{name}”.</strong> It stays stopped; its card is under Denied below if you change
          your mind.
        </span>
      ) : target.kind === 'denied' ? (
        <span>
          <strong>“{name}” is not waiting for approval: it was denied.</strong> It stays stopped; its card is
          under Denied below if you want to approve it after all.
        </span>
      ) : target.kind === 'decided' ? (
        <span>
          <strong>“{name}” is no longer waiting for approval</strong> — it was decided already and is{' '}
          {stateLabel(target.state)} now. Open {link} to see it.
        </span>
      ) : (
        <span>
          <strong>There is no server named “{name}” any more</strong> — it was removed from servers.json, so
          there is nothing to approve.
        </span>
      )}
    </div>
  );
}

function ApprovalCard({
  approval: a,
  targeted,
  changedWhileShown,
  onDecided,
}: {
  approval: ApprovalView;
  targeted: boolean;
  changedWhileShown: boolean;
  onDecided: (name: string, how: 'approved' | 'denied') => void;
}) {
  const api = useApi();
  const client = useQueryClient();
  const invalidate = [keys.status, keys.approvals];
  // Approves what this card shows (its fingerprint), never whatever the file says by the time it lands.
  // Said before the lists are refetched, so the notice that replaces the card knows who decided.
  const approve = useCommand(async () => {
    await api.approve(a.name, a.fingerprint);
    onDecided(a.name, 'approved');
  }, invalidate);
  const scriptsFingerprint = a.package?.scriptsFingerprint ?? null;
  const approveScripts = useCommand(async () => {
    await api.approve(a.name, scriptsFingerprint ?? a.fingerprint);
    onDecided(a.name, 'approved');
  }, invalidate);
  const deny = useCommand(async () => {
    await api.serverAction(a.name, 'deny');
    onDecided(a.name, 'denied');
  }, invalidate);
  // Resolves its package again (at its registry, now); the list then shows the result either way.
  const retry = useMutation({
    mutationFn: () => api.approvalPreview(a.name),
    onSettled: () => client.invalidateQueries({ queryKey: keys.approvals }),
  });
  const busy = approve.isPending || deny.isPending || approveScripts.isPending;
  // Nothing can be approved that is not shown: not while its package is being resolved.
  const unresolved = a.packageError !== null || a.resolving;
  const titleId = `approval-${a.name}`;
  return (
    <article
      className={targeted ? 'card approval targeted' : 'card approval'}
      aria-labelledby={titleId}
      data-approval={a.name}
      // focusable from script only: a deep link focuses the card it points at
      tabIndex={-1}
    >
      <header>
        <h2 id={titleId}>
          <a href={href({ view: 'server', name: a.name, tab: 'config' })}>{a.name}</a>
        </h2>
        <span className="muted">
          {a.approved
            ? `changed since you approved it on ${formatDateTime(a.approved.approvedAt)}`
            : 'new server'}
          {a.state === 'denied' ? ' · denied' : ''}
        </span>
      </header>
      {changedWhileShown ? (
        <div className="banner warn" role="status" data-testid="approval-changed">
          <strong>The configuration of {a.name} changed while it was shown here.</strong> This is the new one:
          review it again before you approve it.
        </div>
      ) : null}
      <dl className="facts">
        <div>
          <dt>Source</dt>
          <dd data-testid="approval-source">
            {a.origin ? (
              <>
                the project <strong>{a.origin.project}</strong>: <code>{a.origin.file}</code> (sha256{' '}
                <code>{a.origin.digest}</code>)
              </>
            ) : (
              <>
                {SOURCES[a.source]}
                {a.edits.length > 0
                  ? `, then changed by Switchboard at your command: ${a.edits.map((e) => EDITS[e]).join('; ')}`
                  : null}
              </>
            )}
          </dd>
        </div>
        <div>
          <dt>{a.launch.transport === 'http' ? 'Header names' : 'Environment variables'}</dt>
          <dd>{a.envKeys.length ? a.envKeys.map((k) => <code key={k}>{k} </code>) : 'none'}</dd>
        </div>
      </dl>
      <h3 className="label">
        {a.launch.transport === 'http' ? 'It will connect to' : 'It will run exactly'}
      </h3>
      <pre className="command" data-testid="approval-command">
        {a.lines.join('\n')}
      </pre>
      {a.willNotStart.map((line) => (
        <div key={line} className="banner error" role="alert" data-testid="approval-will-not-start">
          {line}
        </div>
      ))}
      {a.origin ? <ApprovalProjectValues server={a.name} needs={a.origin.needs} /> : null}
      {a.packageNote ? (
        <div className="banner warn" role="status" data-testid="approval-package-note">
          {a.packageNote}
        </div>
      ) : null}
      {a.packageError ? (
        <div className="banner error" role="alert" data-testid="approval-package-error">
          <strong>Its package could not be resolved:</strong> {a.packageError}{' '}
          <button
            type="button"
            className="small"
            disabled={retry.isPending}
            onClick={() => retry.mutate(undefined)}
          >
            {retry.isPending ? 'Trying…' : 'Try again'}
          </button>
        </div>
      ) : null}
      {a.resolving ? (
        <div className="banner info" role="status" data-testid="approval-resolving">
          <strong>Resolving its package at its registry…</strong> The exact version, its dependencies and any
          install scripts appear here; it can be approved once they do.
        </div>
      ) : null}
      {a.package ? <PackageParts review={a.package} testId="approval" /> : null}
      <AccessParts access={a.access} testId="approval" />
      <ReferenceParts references={a.references} testId="approval" />
      {a.approved ? (
        <>
          <h3 className="label">Changes since the last approval</h3>
          <Diff
            before={a.approved.lines}
            after={a.lines}
            label={`Changes to ${a.name} since the last approval`}
          />
        </>
      ) : null}
      <div className="form-actions">
        <button
          type="button"
          className="primary"
          disabled={busy || unresolved}
          onClick={() =>
            approve.mutate(undefined, {
              // Refused because the config changed since this card was drawn: show the new one.
              onError: (err) => {
                if (err instanceof UiApiError && err.status === 409)
                  void client.invalidateQueries({ queryKey: keys.approvals });
              },
            })
          }
        >
          {approve.isPending ? 'Approving…' : `Approve ${a.name}`}
        </button>
        {scriptsFingerprint ? (
          <button
            type="button"
            disabled={busy || unresolved}
            onClick={() => approveScripts.mutate(undefined)}
          >
            {approveScripts.isPending ? 'Approving…' : 'Approve with install scripts'}
          </button>
        ) : null}
        {a.state === 'pending-approval' ? (
          <button type="button" disabled={busy} onClick={() => deny.mutate(undefined)}>
            Deny
          </button>
        ) : null}
      </div>
      {approve.error ? <ErrorText error={approve.error} /> : null}
      {approveScripts.error ? <ErrorText error={approveScripts.error} /> : null}
      {deny.error ? <ErrorText error={deny.error} /> : null}
    </article>
  );
}

/**
 * A server whose instructions, tools or prompts changed since they were pinned: changed instructions
 * as a diff, each new tool or prompt whole, each changed one as a diff, the removed ones by name.
 * Accept carries the change this card shows; if the server changed again meanwhile, the answer is 409
 * and the card is replaced by the new change.
 */
function ToolChangeCard({ change: c, targeted }: { change: ToolChange; targeted: boolean }) {
  const api = useApi();
  const client = useQueryClient();
  const accept = useCommand(() => api.acceptTools(c.server, c.change), [keys.toolChanges, keys.status]);
  const titleId = `tool-change-${c.server}`;
  const tools = c.added.length + c.changed.length;
  const prompts = c.prompts.added.length + c.prompts.changed.length;
  const templates = c.resourceTemplates.added.length + c.resourceTemplates.changed.length;
  const held = wordList([
    ...(tools ? [tools === 1 ? '1 tool' : `${tools} tools`] : []),
    ...(prompts ? [prompts === 1 ? '1 prompt' : `${prompts} prompts`] : []),
    ...(templates ? [templates === 1 ? '1 resource template' : `${templates} resource templates`] : []),
    ...(c.instructions ? ['its instructions'] : []),
  ]);
  return (
    <article
      className={targeted ? 'card approval targeted' : 'card approval'}
      aria-labelledby={titleId}
      data-tool-change={c.server}
      tabIndex={-1}
    >
      <header>
        <h2 id={titleId}>
          <a href={href({ view: 'server', name: c.server, tab: 'tools' })}>{c.server}</a>
        </h2>
        <span className="muted">
          {held} held back
          {c.pinnedAt ? ` · approved on ${formatDateTime(c.pinnedAt)}` : ''}
        </span>
      </header>
      {c.baselineMissing ? (
        <div className="banner warn" role="status">
          What was approved for {c.server} is not on record any more (its file in Switchboard’s home is
          missing or damaged), so everything it gives now is shown as new.
        </div>
      ) : null}
      {c.instructions ? (
        <section data-testid="instructions-changed">
          <h3 className="label">
            {c.instructions.before === null ? 'New instructions' : 'Changed instructions'}
          </h3>
          <p className="muted">
            Editors put these in the model’s context. Until you accept, they get{' '}
            {c.instructions.before === null ? 'none' : 'the ones you approved'}.
          </p>
          <Diff
            before={c.instructions.before ?? []}
            after={c.instructions.after}
            label={`Changes to the instructions of ${c.server}`}
          />
        </section>
      ) : null}
      {c.added.map((tool) => (
        <section key={`added-${tool.name}`} data-testid="tool-added">
          <h3 className="label">
            New tool <code>{tool.name}</code>
          </h3>
          <pre className="command">{tool.lines.join('\n')}</pre>
        </section>
      ))}
      {c.changed.map((tool) => (
        <section key={`changed-${tool.name}`} data-testid="tool-changed">
          <h3 className="label">
            Changed tool: <code>{tool.name}</code>
          </h3>
          <Diff before={tool.before} after={tool.after} label={`Changes to the tool ${tool.name}`} />
        </section>
      ))}
      {c.prompts.added.map((prompt) => (
        <section key={`prompt-added-${prompt.name}`} data-testid="prompt-added">
          <h3 className="label">
            New prompt <code>{prompt.name}</code>
          </h3>
          <pre className="command">{prompt.lines.join('\n')}</pre>
        </section>
      ))}
      {c.prompts.changed.map((prompt) => (
        <section key={`prompt-changed-${prompt.name}`} data-testid="prompt-changed">
          <h3 className="label">
            Changed prompt: <code>{prompt.name}</code>
          </h3>
          <Diff before={prompt.before} after={prompt.after} label={`Changes to the prompt ${prompt.name}`} />
        </section>
      ))}
      {c.resourceTemplates.added.map((template) => (
        <section key={`template-added-${template.name}`} data-testid="template-added">
          <h3 className="label">
            New resource template <code>{template.name}</code>
          </h3>
          <pre className="command">{template.lines.join('\n')}</pre>
        </section>
      ))}
      {c.resourceTemplates.changed.map((template) => (
        <section key={`template-changed-${template.name}`} data-testid="template-changed">
          <h3 className="label">
            Changed resource template: <code>{template.name}</code>
          </h3>
          <Diff
            before={template.before}
            after={template.after}
            label={`Changes to the resource template ${template.name}`}
          />
        </section>
      ))}
      {c.removed.length > 0 || c.prompts.removed.length > 0 || c.resourceTemplates.removed.length > 0 ? (
        <p className="muted" data-testid="tool-removed">
          No longer listed:{' '}
          {c.removed.map((name) => (
            <code key={name}>{name} </code>
          ))}
          {c.prompts.removed.map((name) => (
            <code key={`prompt-${name}`}>prompt {name} </code>
          ))}
          {c.resourceTemplates.removed.map((name) => (
            <code key={`template-${name}`}>resource template {name} </code>
          ))}
        </p>
      ) : null}
      <div className="form-actions">
        <button
          type="button"
          className="primary"
          disabled={accept.isPending}
          onClick={() =>
            accept.mutate(undefined, {
              // The server changed again since this card was drawn: show the new change.
              onError: (err) => {
                if (err instanceof UiApiError && err.status === 409)
                  void client.invalidateQueries({ queryKey: keys.toolChanges });
              },
            })
          }
        >
          {accept.isPending ? 'Accepting…' : `Accept the changes of ${c.server}`}
        </button>
      </div>
      {accept.error ? <ErrorText error={accept.error} /> : null}
    </article>
  );
}
