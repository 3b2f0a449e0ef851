import type { z } from 'zod';
import type { ServerSourceSchema } from '../../../shared/schema/state.ts';
import type { ApprovalView } from '../../../shared/ui-api.ts';
import { useApi } from '../api/context.tsx';
import { useApprovals, useCommand } from '../api/hooks.ts';
import { keys } from '../api/keys.ts';
import { Diff } from '../components/Diff.tsx';
import { EmptyState, ErrorText, Loading } from '../components/Feedback.tsx';
import { ViewTitle } from '../components/ViewTitle.tsx';
import { formatDateTime } from '../lib/format.ts';
import { href } from '../router.ts';

const SOURCES: Record<z.infer<typeof ServerSourceSchema>, string> = {
  'hand-edit': 'servers.json (edited by hand or by another program)',
  cli: 'the switchboard command line',
  import: 'imported from an editor’s config',
  'install-link': 'an install link',
  ui: 'this window (added or changed here)',
};

export default function ApprovalsView() {
  const approvals = useApprovals();
  const pending = approvals.data?.filter((a) => a.state === 'pending-approval') ?? [];
  const denied = approvals.data?.filter((a) => a.state === 'denied') ?? [];
  return (
    <section>
      <ViewTitle>Approvals</ViewTitle>
      <p className="muted">
        Nothing runs until you approve its exact launch configuration. Any later change to what runs asks
        again.
      </p>
      {approvals.isPending ? <Loading what="approvals" /> : null}
      {approvals.error ? <ErrorText error={approvals.error} /> : null}
      {approvals.data && pending.length === 0 ? (
        <EmptyState title="Nothing waits for approval">
          <p>
            When a server is added or its command, arguments, environment or URL change, it waits here before
            it runs. See all servers under <a href={href({ view: 'servers' })}>Servers</a>.
          </p>
        </EmptyState>
      ) : null}
      {pending.map((a) => (
        <ApprovalCard key={`${a.name}:${a.fingerprint}`} approval={a} />
      ))}
      {denied.length > 0 ? (
        <>
          <h2>Denied</h2>
          <p className="muted">These stay stopped until you approve them or their configuration changes.</p>
          {denied.map((a) => (
            <ApprovalCard key={`${a.name}:${a.fingerprint}`} approval={a} />
          ))}
        </>
      ) : null}
    </section>
  );
}

function ApprovalCard({ approval: a }: { approval: ApprovalView }) {
  const api = useApi();
  const invalidate = [keys.status, keys.approvals];
  const approve = useCommand(() => api.serverAction(a.name, 'approve'), invalidate);
  const deny = useCommand(() => api.serverAction(a.name, 'deny'), invalidate);
  const busy = approve.isPending || deny.isPending;
  const titleId = `approval-${a.name}`;
  return (
    <article className="card approval" aria-labelledby={titleId} data-approval={a.name}>
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
      <dl className="facts">
        <div>
          <dt>Source</dt>
          <dd>{SOURCES[a.source]}</dd>
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
        <button type="button" className="primary" disabled={busy} onClick={() => approve.mutate(undefined)}>
          {approve.isPending ? 'Approving…' : `Approve ${a.name}`}
        </button>
        {a.state === 'pending-approval' ? (
          <button type="button" disabled={busy} onClick={() => deny.mutate(undefined)}>
            Deny
          </button>
        ) : null}
      </div>
      {approve.error ? <ErrorText error={approve.error} /> : null}
      {deny.error ? <ErrorText error={deny.error} /> : null}
    </article>
  );
}
