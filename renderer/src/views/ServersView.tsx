import { useEffect } from 'react';
import type { ServerStatus } from '../../../shared/status.ts';
import { useStatus } from '../api/hooks.ts';
import { EmptyState, ErrorText, Loading } from '../components/Feedback.tsx';
import { EnabledSwitch, ServerActions } from '../components/ServerActions.tsx';
import { StateBadge } from '../components/StateBadge.tsx';
import { ViewTitle } from '../components/ViewTitle.tsx';
import { formatDuration } from '../lib/format.ts';
import { useNow } from '../lib/use-now.ts';
import { href } from '../router.ts';

/** Marked once per page load when the servers list first shows real data (the e2e run reads it). */
export const SERVERS_PAINTED_MARK = 'switchboard:servers-painted';

function usePaintedMark(ready: boolean): void {
  useEffect(() => {
    if (!ready || performance.getEntriesByName(SERVERS_PAINTED_MARK).length > 0) return;
    // After the browser has painted the frame with the list in it.
    requestAnimationFrame(() => setTimeout(() => performance.mark(SERVERS_PAINTED_MARK), 0));
  }, [ready]);
}

function timing(server: ServerStatus, now: number): string {
  if (server.state === 'running' && server.since !== null) return `up ${formatDuration(now - server.since)}`;
  if (server.state === 'backoff' && server.nextRetryAt !== null)
    return `next try in ${formatDuration(Math.max(0, server.nextRetryAt - now) + 999)}`;
  return '—';
}

export function ServersView() {
  const status = useStatus();
  const servers = status.data?.servers ?? [];
  const ticking = servers.some((s) => s.state === 'running' || s.state === 'backoff');
  const now = useNow(ticking);
  usePaintedMark(status.data !== undefined);

  return (
    <section aria-labelledby="servers-title">
      <ViewTitle
        actions={
          <a className="button primary" href={href({ view: 'add' })}>
            Add server
          </a>
        }
      >
        <span id="servers-title">Servers</span>
      </ViewTitle>
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
      {servers.length > 0 ? (
        <div className="table-scroll">
          <table className="servers" data-testid="servers-table">
            {/* Fixed widths: a ticking uptime or a new button never moves the columns. */}
            <colgroup>
              <col />
              <col className="col-state" />
              <col className="col-uptime" />
              <col className="col-num" />
              <col className="col-num" />
              <col className="col-actions" />
              <col className="col-enabled" />
            </colgroup>
            <thead>
              <tr>
                <th scope="col">Server</th>
                <th scope="col">State</th>
                <th scope="col">Uptime</th>
                <th scope="col" className="num">
                  Restarts
                </th>
                <th scope="col" className="num">
                  Tools
                </th>
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
                <th scope="col" className="center">
                  Enabled
                </th>
              </tr>
            </thead>
            {servers.map((server) => (
              <tbody key={server.name} data-server={server.name}>
                <tr>
                  <th scope="row" className="server-name">
                    <a href={href({ view: 'server', name: server.name, tab: 'config' })}>{server.name}</a>
                    <span className="muted small"> {server.transport === 'http' ? 'remote' : 'local'}</span>
                  </th>
                  <td>
                    <StateBadge state={server.state} />
                  </td>
                  <td className="timing">{timing(server, now)}</td>
                  <td className="num">{server.restarts}</td>
                  <td className="num">{server.toolCount ?? '—'}</td>
                  <td>
                    <ServerActions server={server} compact />
                  </td>
                  <td className="center">
                    <EnabledSwitch server={server} />
                  </td>
                </tr>
                {server.lastError && server.state !== 'running' && server.state !== 'needs-sign-in' ? (
                  <tr className="last-error">
                    <td colSpan={7}>
                      <span className="error-label">Last error:</span> {server.lastError}
                    </td>
                  </tr>
                ) : null}
              </tbody>
            ))}
          </table>
        </div>
      ) : null}
    </section>
  );
}
