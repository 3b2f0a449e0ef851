import { useEffect, useRef, type ReactNode } from 'react';
import type { ServerStatus } from '../../../shared/status.ts';
import { isUpdate, updateWords, type OutdatedEntry, type UpdatesReport } from '../../../shared/store.ts';
import { useApi } from '../api/context.tsx';
import { useCommand, useStatus, useUpdates } from '../api/hooks.ts';
import { keys } from '../api/keys.ts';
import { EmptyState, ErrorText, Loading } from '../components/Feedback.tsx';
import { EnabledSwitch, ServerActions } from '../components/ServerActions.tsx';
import { StateBadge } from '../components/StateBadge.tsx';
import { ViewTitle } from '../components/ViewTitle.tsx';
import { useLastKnownAt } from '../api/context.tsx';
import { formatClock, formatDateTime, formatDuration, plural } from '../lib/format.ts';
import { useNow } from '../lib/use-now.ts';
import { useWidth } from '../lib/use-width.ts';
import { href } from '../router.ts';
import { SandboxRefusal } from '../components/SandboxGrant.tsx';

/** Marked once per page load when the servers list first shows real data (the e2e run reads it). */
export const SERVERS_PAINTED_MARK = 'switchboard:servers-painted';

function usePaintedMark(ready: boolean): void {
  useEffect(() => {
    if (!ready || performance.getEntriesByName(SERVERS_PAINTED_MARK).length > 0) return;
    // After the browser has painted the frame with the list in it.
    requestAnimationFrame(() => setTimeout(() => performance.mark(SERVERS_PAINTED_MARK), 0));
  }, [ready]);
}

/** The servers table's room (px) below which it has four columns instead of seven. */
const COMPACT_BELOW_PX = 900;

function timing(server: ServerStatus, now: number): string {
  if (server.state === 'running' && server.since !== null) return `up ${formatDuration(now - server.since)}`;
  if (server.state === 'backoff' && server.nextRetryAt !== null)
    return `next try in ${formatDuration(Math.max(0, server.nextRetryAt - now) + 999)}`;
  return '—';
}

export function ServersView() {
  const status = useStatus();
  const servers = status.data?.servers ?? [];
  // Switchboard stopped: the rows are how things stood then, with their times as of then.
  const lastKnownAt = useLastKnownAt();
  const ticking =
    lastKnownAt === undefined && servers.some((s) => s.state === 'running' || s.state === 'backoff');
  const clock = useNow(ticking);
  const now = lastKnownAt ?? clock;
  usePaintedMark(status.data !== undefined);
  // Below this much room the table folds uptime, restarts and tools under the name (720 px windows).
  const room = useRef<HTMLElement>(null);
  const width = useWidth(room);
  const compact = width !== undefined && width < COMPACT_BELOW_PX;
  const updates = useUpdates();
  const found = new Map(
    (updates.data?.servers ?? []).filter(isUpdate).map((entry) => [entry.server, entry] as const),
  );

  return (
    <section aria-labelledby="servers-title" ref={room}>
      <ViewTitle
        actions={
          <a className="button primary" href={href({ view: 'add' })}>
            Add server
          </a>
        }
      >
        <span id="servers-title">Servers</span>
      </ViewTitle>
      {updates.data ? <UpdatesBar report={updates.data} available={found.size} /> : null}
      {status.isPending ? <Loading what="servers" /> : null}
      {status.error ? <ErrorText error={status.error} /> : null}
      {status.data && servers.length === 0 ? (
        <EmptyState title="No servers yet">
          <p>
            Add an MCP server with <a href={href({ view: 'add' })}>Add server</a>: the program to run (for
            example <code>npx</code> with <code>-y @modelcontextprotocol/server-everything stdio</code>) or a
            remote URL. Or paste an <code>mcpServers</code> entry into <code>servers.json</code> by hand — it
            shows up here at once.
          </p>
          <p>Nothing runs until you approve it.</p>
        </EmptyState>
      ) : null}
      {servers.length > 0 && lastKnownAt !== undefined ? (
        <p className="last-known" role="note" data-testid="last-known">
          As of {formatClock(lastKnownAt)}, when Switchboard stopped. None of these servers runs now.
        </p>
      ) : null}
      {servers.length > 0 ? (
        <div className={lastKnownAt === undefined ? 'table-scroll' : 'table-scroll last-known-state'}>
          {compact ? (
            <CompactTable servers={servers} now={now} updates={found} />
          ) : (
            <WideTable servers={servers} now={now} updates={found} />
          )}
        </div>
      ) : null}
    </section>
  );
}

/**
 * The name, never broken inside a word: one line, cut with "…" only when even the whole column is too
 * narrow (names may be 48 characters), the full name then on hover and on the server's page.
 */
function NameLink({ server }: { server: ServerStatus }) {
  return (
    <a
      className="server-link"
      href={href({ view: 'server', name: server.name, tab: 'config' })}
      title={server.name}
    >
      {server.name}
    </a>
  );
}

/** A server with a newer release of its package: says so, and leads to its page to review it. */
function UpdateTag({ name, entry }: { name: string; entry: OutdatedEntry | undefined }) {
  if (!entry) return null;
  return (
    <a
      className="update-tag"
      href={href({ view: 'server', name, tab: 'config' })}
      title={`Update available: ${updateWords(entry)}`}
      data-testid="update-tag"
    >
      update: {entry.wanted}
    </a>
  );
}

/**
 * When the approved packages were last checked for newer releases, what that found, and a button to
 * check now. Only where a server runs a stored package (or the last check found something).
 */
function UpdatesBar({ report, available }: { report: UpdatesReport; available: number }) {
  const api = useApi();
  const check = useCommand(() => api.checkUpdates(), [keys.updates]);
  if (report.packages === 0 && report.servers.length === 0) return null;
  const failed = report.servers.filter((s) => s.error !== null).length;
  const checking = report.checking || check.isPending;
  const said = checking
    ? 'Checking your servers’ packages for newer releases…'
    : report.checkedAt === null
      ? 'Your servers’ packages have not been checked for newer releases yet.'
      : `Checked for updates ${formatDateTime(report.checkedAt)}: ` +
        (available ? `${plural(available, 'update')} available` : 'every package is up to date') +
        (failed ? `; ${plural(failed, 'server')} could not be checked` : '') +
        '.';
  return (
    <div className="updates-bar" data-testid="updates-bar">
      <span className={available ? 'tone-warn' : 'muted'} role="status">
        {said}
        {report.nextCheckAt && !checking ? (
          <span className="muted"> Next check {formatDateTime(report.nextCheckAt)}.</span>
        ) : null}
      </span>
      <button type="button" className="small" disabled={checking} onClick={() => check.mutate(undefined)}>
        Check for updates
      </button>
      {check.error ? <ErrorText error={check.error} /> : null}
    </div>
  );
}

function LastError({ server, columns }: { server: ServerStatus; columns: number }) {
  if (server.sandboxRefused && server.state === 'running') {
    // A running server whose sandbox refused it something: what, and how to allow it.
    return (
      <tr className="last-error">
        <td colSpan={columns}>
          <span className="error-label">Sandbox:</span> <SandboxRefusal server={server} />
        </td>
      </tr>
    );
  }
  if (!server.lastError || server.state === 'running' || server.state === 'needs-sign-in') return null;
  return (
    <tr className="last-error">
      <td colSpan={columns}>
        <span className="error-label">Last error:</span> {server.lastError}
      </td>
    </tr>
  );
}

const kind = (server: ServerStatus) => (server.transport === 'http' ? 'remote' : 'local');

/** Seven columns, fixed widths: a ticking uptime or a new button never moves the columns. */
interface TableProps {
  servers: ServerStatus[];
  now: number;
  /** what the last check for updates found, by server */
  updates: ReadonlyMap<string, OutdatedEntry>;
}

function WideTable({ servers, now, updates }: TableProps) {
  return (
    <ServersTable
      className="servers"
      cols={
        <>
          <col className="col-uptime" />
          <col className="col-num" />
          <col className="col-num" />
        </>
      }
      heads={
        <>
          <th scope="col">Uptime</th>
          <th scope="col" className="num">
            Restarts
          </th>
          <th scope="col" className="num">
            Tools
          </th>
        </>
      }
    >
      {servers.map((server) => (
        <ServerRow
          key={server.name}
          server={server}
          update={updates.get(server.name)}
          factsClass="muted small"
          facts={kind(server)}
          columns={7}
        >
          <td className="timing">{timing(server, now)}</td>
          <td className="num">{server.restarts}</td>
          <td className="num">{server.toolCount ?? '—'}</td>
        </ServerRow>
      ))}
    </ServersTable>
  );
}

/**
 * Four columns for a narrow window: uptime, tools and restarts go on a line under the name, so the
 * name keeps room for itself and the actions stay in view.
 */
function CompactTable({ servers, now, updates }: TableProps) {
  return (
    <ServersTable className="servers compact">
      {servers.map((server) => {
        const uptime = timing(server, now);
        const facts = [
          kind(server),
          uptime === '—' ? undefined : uptime,
          server.toolCount === null ? undefined : `${server.toolCount} tools`,
          server.restarts ? `${server.restarts} restarts` : undefined,
        ].filter((f) => f !== undefined);
        return (
          <ServerRow
            key={server.name}
            server={server}
            update={updates.get(server.name)}
            factsClass="muted small server-facts"
            facts={facts.join(' · ')}
            columns={4}
          />
        );
      })}
    </ServersTable>
  );
}

/** The columns both tables have (server, state, …, actions, enabled), with the wide one's between. */
function ServersTable(props: {
  className: string;
  cols?: ReactNode;
  heads?: ReactNode;
  children: ReactNode;
}) {
  return (
    <table className={props.className} data-testid="servers-table">
      <colgroup>
        <col />
        <col className="col-state" />
        {props.cols}
        <col className="col-actions" />
        <col className="col-enabled" />
      </colgroup>
      <thead>
        <tr>
          <th scope="col">Server</th>
          <th scope="col">State</th>
          {props.heads}
          <th scope="col">
            <span className="visually-hidden">Actions</span>
          </th>
          <th scope="col" className="center">
            Enabled
          </th>
        </tr>
      </thead>
      {props.children}
    </table>
  );
}

/** One server: name with its facts line, state, the wide table's cells (children), actions, switch. */
function ServerRow(props: {
  server: ServerStatus;
  update: OutdatedEntry | undefined;
  factsClass: string;
  facts: string;
  columns: number;
  children?: ReactNode;
}) {
  const { server } = props;
  return (
    <tbody data-server={server.name}>
      <tr>
        <th scope="row" className="server-name">
          <NameLink server={server} />
          <span className={props.factsClass}>
            {props.facts} <UpdateTag name={server.name} entry={props.update} />
          </span>
        </th>
        <td>
          <StateBadge state={server.state} />
        </td>
        {props.children}
        <td>
          <ServerActions server={server} compact />
        </td>
        <td className="center">
          <EnabledSwitch server={server} />
        </td>
      </tr>
      <LastError server={server} columns={props.columns} />
    </tbody>
  );
}
