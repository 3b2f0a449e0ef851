import type { ServerState } from '../../../shared/status.ts';

/** Each state has a colour, a distinct symbol and words: never colour alone. */
const LOOK: Record<ServerState, { label: string; symbol: string; tone: string }> = {
  running: { label: 'running', symbol: '●', tone: 'ok' },
  starting: { label: 'starting', symbol: '◐', tone: 'info' },
  backoff: { label: 'restarting soon', symbol: '↻', tone: 'warn' },
  'crash-loop': { label: 'crash loop', symbol: '✕', tone: 'danger' },
  error: { label: 'error', symbol: '!', tone: 'danger' },
  'pending-approval': { label: 'needs approval', symbol: '?', tone: 'warn' },
  'needs-sign-in': { label: 'needs sign-in', symbol: '→', tone: 'warn' },
  denied: { label: 'denied', symbol: '⊘', tone: 'muted' },
  disabled: { label: 'disabled', symbol: '○', tone: 'muted' },
  stopped: { label: 'stopped', symbol: '■', tone: 'muted' },
  // Ready: it starts at the next request (not stopped, which is the person's choice).
  idle: { label: 'idle', symbol: '◌', tone: 'ok' },
};

export function stateLabel(state: ServerState): string {
  return LOOK[state].label;
}

export function StateBadge({ state }: { state: ServerState }) {
  const look = LOOK[state];
  return (
    <span className={`state tone-${look.tone}`} data-state={state}>
      <span className="state-symbol" aria-hidden="true">
        {look.symbol}
      </span>
      {look.label}
    </span>
  );
}
