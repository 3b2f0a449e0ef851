import { lazy, Suspense } from 'react';
import type { ServerAction } from '../../../shared/api.ts';
import type { ServerStatus } from '../../../shared/status.ts';
import { useApi } from '../api/context.tsx';
import { useCommand } from '../api/hooks.ts';
import { keys } from '../api/keys.ts';
import { href } from '../router.ts';
import { ErrorText } from './Feedback.tsx';

// Only servers waiting for a sign-in show it: the Servers view's first chunk stays as small as before.
const SignInButton = lazy(async () => ({ default: (await import('./SignIn.tsx')).SignInButton }));

/**
 * Start / stop / restart as the server's state allows, and the enabled switch (in the servers table
 * the switch has a column of its own: `compact` leaves it out).
 */
export function ServerActions({ server, compact = false }: { server: ServerStatus; compact?: boolean }) {
  const api = useApi();
  const action = useCommand(
    ({ act }: { act: Exclude<ServerAction, 'approve'> }) => api.serverAction(server.name, act),
    [keys.status],
  );
  const busy = action.isPending;
  const s = server.state;
  const run = (act: Exclude<ServerAction, 'approve'>) => action.mutate({ act });
  const label = (verb: string) => `${verb} ${server.name}`;

  return (
    <div className="server-actions">
      <div className="buttons">
        {s === 'pending-approval' || s === 'denied' ? (
          <a
            className="button primary"
            href={href({ view: 'approvals', server: server.name })}
            aria-label={`Review ${server.name} in Approvals`}
          >
            Review
          </a>
        ) : null}
        {s === 'needs-sign-in' ? (
          <Suspense fallback={null}>
            <SignInButton name={server.name} />
          </Suspense>
        ) : null}
        {s === 'stopped' || s === 'error' || s === 'crash-loop' || s === 'idle' ? (
          <button type="button" disabled={busy} onClick={() => run('start')} aria-label={label('Start')}>
            {s === 'stopped' ? 'Start' : s === 'idle' ? 'Start now' : 'Try again'}
          </button>
        ) : null}
        {s === 'idle' ? (
          // Stopped (the person's choice) also keeps requests from starting it.
          <button type="button" disabled={busy} onClick={() => run('stop')} aria-label={label('Stop')}>
            Stop
          </button>
        ) : null}
        {s === 'running' || s === 'starting' || s === 'backoff' ? (
          <>
            <button
              type="button"
              disabled={busy}
              onClick={() => run('restart')}
              aria-label={label('Restart')}
            >
              Restart
            </button>
            <button type="button" disabled={busy} onClick={() => run('stop')} aria-label={label('Stop')}>
              Stop
            </button>
          </>
        ) : null}
        {compact ? null : <EnabledSwitch server={server} withLabel />}
      </div>
      {action.error ? <ErrorText error={action.error} /> : null}
    </div>
  );
}

/** Enabled: a disabled server stays configured but is never started. Named for screen readers. */
export function EnabledSwitch({ server, withLabel = false }: { server: ServerStatus; withLabel?: boolean }) {
  const api = useApi();
  const enable = useCommand((enabled: boolean) => api.setEnabled(server.name, enabled), [keys.status]);
  const on = server.state !== 'disabled';
  return (
    <>
      <label className="switch" title={on ? 'Enabled' : 'Disabled: never started'}>
        <input
          type="checkbox"
          role="switch"
          checked={enable.isPending ? enable.variables : on}
          disabled={enable.isPending}
          onChange={(e) => enable.mutate(e.target.checked)}
          aria-label={`${server.name} enabled`}
        />
        <span className="track" aria-hidden="true" />
        {withLabel ? <span>Enabled</span> : null}
      </label>
      {enable.error ? <ErrorText error={enable.error} /> : null}
    </>
  );
}
