import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useId, useRef, useState, type FormEvent } from 'react';
import type { SignInRequest } from '../../../shared/sign-in.ts';
import type { ServerStatus } from '../../../shared/status.ts';
import { useApi } from '../api/context.tsx';
import { useCommand, useSignInInfo } from '../api/hooks.ts';
import { keys } from '../api/keys.ts';
import { errorText } from '../lib/format.ts';
import { ConfirmButton } from './ConfirmButton.tsx';
import { ErrorText } from './Feedback.tsx';

type Phase =
  | { kind: 'idle' }
  | { kind: 'starting' }
  | { kind: 'waiting'; url: string }
  | { kind: 'signed-in' }
  | { kind: 'failed'; message: string };

/**
 * A sign-in to one remote server from this window: Switchboard starts it and answers with the
 * authorization page, which opens in a new tab (the system browser in the desktop app); the person
 * signs in there, and the live `sign-in` event says how it ended. The tab is opened at the click,
 * before the answer, so no popup blocker stands in the way; it cannot reach back into this page.
 */
function useSignIn(name: string) {
  const api = useApi();
  const client = useQueryClient();
  const [phase, setPhase] = useState<Phase>({ kind: 'idle' });
  /** the sign-in this window waits for, by the id its start answered */
  const current = useRef<string | undefined>(undefined);
  /** endings that arrived while a start was still being answered, by sign-in id */
  const early = useRef(new Map<string, Phase>());

  useEffect(
    () =>
      api.subscribe((event) => {
        if (event.type !== 'sign-in' || event.outcome.name !== name) return;
        const { id, result, message } = event.outcome;
        const ended: Phase =
          result === 'signed-in'
            ? { kind: 'signed-in' }
            : result === 'failed'
              ? { kind: 'failed', message: message ?? 'the sign-in failed' }
              : { kind: 'idle' };
        // Starting a sign-in ends the one before it: only this window's own counts.
        if (id === current.current) setPhase(ended);
        else if (current.current === undefined) early.current.set(id, ended);
      }),
    [api, name],
  );

  const start = async (request?: SignInRequest) => {
    const tab = api.transport === 'http' ? window.open('', '_blank') : null;
    if (tab) tab.opener = null;
    current.current = undefined;
    early.current.clear();
    setPhase({ kind: 'starting' });
    let next: Phase;
    try {
      const result = await api.signIn(name, request);
      if (result.status === 'browser') {
        // (the answer's schema already refused any page but https, or http on this computer)
        if (tab) tab.location.href = result.url;
        else await api.openExternal(result.url);
        current.current = result.id;
        next = early.current.get(result.id) ?? { kind: 'waiting', url: result.url };
      } else {
        tab?.close();
        next = { kind: 'signed-in' };
      }
    } catch (err) {
      tab?.close();
      next = { kind: 'failed', message: errorText(err) };
    }
    setPhase(next);
    void client.invalidateQueries({ queryKey: keys.signIn(name) });
  };
  /** Forgets the sign-in shown (after a sign-out). */
  const reset = () => {
    current.current = undefined;
    setPhase({ kind: 'idle' });
  };
  return { phase, start, reset };
}

/** What the person sees of a sign-in in progress or just ended. */
function SignInProgress({ name, phase }: { name: string; phase: Phase }) {
  if (phase.kind === 'waiting') {
    return (
      <p className="sign-in-progress" role="status">
        Finish signing in to {name} in your browser.{' '}
        <a href={phase.url} target="_blank" rel="noopener noreferrer">
          Open the sign-in page
        </a>{' '}
        if it did not open.
      </p>
    );
  }
  if (phase.kind === 'signed-in')
    return (
      <p className="ok-text small" role="status">
        Signed in to {name}.
      </p>
    );
  if (phase.kind === 'failed') return <ErrorText>{phase.message}</ErrorText>;
  return null;
}

/** The Sign in button with its progress: in server rows, the server detail and Approvals. */
export function SignInButton({
  name,
  label = 'Sign in',
  primary = true,
}: {
  name: string;
  label?: string;
  primary?: boolean;
}) {
  const { phase, start } = useSignIn(name);
  return (
    <div className="sign-in">
      <button
        type="button"
        className={primary ? 'primary' : ''}
        disabled={phase.kind === 'starting'}
        onClick={() => void start()}
        aria-label={`${label} to ${name}`}
      >
        {phase.kind === 'starting' ? 'Starting…' : phase.kind === 'waiting' ? 'Start again' : label}
      </button>
      <SignInProgress name={name} phase={phase} />
    </div>
  );
}

/**
 * A remote server's sign-in in its detail view: whether Switchboard holds one and for what, sign in
 * (again) and sign out, and a client the person registered themselves for servers whose
 * authorization server takes no automatic registration. Shown for remote servers that use OAuth.
 */
export function SignInPanel({ server }: { server: ServerStatus }) {
  const api = useApi();
  const id = useId();
  const name = server.name;
  const remote = server.transport === 'http';
  const info = useSignInInfo(name, remote);
  const { phase: own, start, reset } = useSignIn(name);
  const signOut = useCommand(async () => {
    await api.signOut(name);
    reset();
  }, [keys.signIn(name), keys.status]);
  const data = info.data;
  // A sign-in started elsewhere (the tray, `switchboard login`, before a reload) still waits.
  const phase: Phase =
    own.kind === 'idle' && data?.pending ? { kind: 'waiting', url: data.pending.url } : own;
  const needs = server.state === 'needs-sign-in';
  if (!remote || !data) return null;
  if (!data.signedIn && !needs && !data.pending && !data.wantedScope && phase.kind === 'idle') return null;
  const ownApp = phase.kind === 'failed' && /register an OAuth app/i.test(phase.message);
  return (
    <section className="card sign-in-panel" aria-labelledby={`${id}-title`} data-testid="sign-in-panel">
      <h2 id={`${id}-title`}>Sign-in</h2>
      {data.signedIn ? (
        <p>
          <strong>Signed in</strong>
          {data.scope ? (
            <>
              {' '}
              with access to <code>{data.scope}</code>
            </>
          ) : null}
          . Switchboard renews the access by itself and keeps it in your keychain; editors reach {name}{' '}
          through Switchboard and never see it.
        </p>
      ) : (
        <p>
          <strong>Not signed in.</strong> {name} answers only after you sign in to it, in your browser.
        </p>
      )}
      {data.wantedScope ? (
        <p className="banner warn" role="status">
          A request needed more access (<code>{data.wantedScope}</code>): sign in again to allow it.
        </p>
      ) : null}
      <div className="form-actions">
        <button
          type="button"
          className={data.signedIn && !data.wantedScope ? '' : 'primary'}
          disabled={phase.kind === 'starting'}
          onClick={() => void start(data.signedIn ? { fresh: true } : undefined)}
          aria-label={`${data.signedIn ? 'Sign in again' : 'Sign in'} to ${name}`}
        >
          {phase.kind === 'starting'
            ? 'Starting…'
            : phase.kind === 'waiting'
              ? 'Start again'
              : data.signedIn
                ? 'Sign in again'
                : 'Sign in'}
        </button>
        {data.signedIn ? (
          <ConfirmButton
            label="Sign out"
            confirmLabel={`Sign out of ${name}`}
            onConfirm={() => signOut.mutate(undefined)}
          />
        ) : null}
      </div>
      <SignInProgress name={name} phase={phase} />
      {signOut.error ? <ErrorText error={signOut.error} /> : null}
      <OwnApp key={String(ownApp)} open={ownApp} onSignIn={(request) => void start(request)} />
    </section>
  );
}

/** An OAuth app the person registered with the server's provider, for providers that need one. */
function OwnApp({ open, onSignIn }: { open: boolean; onSignIn: (request: SignInRequest) => void }) {
  const id = useId();
  const [clientId, setClientId] = useState('');
  const [clientSecret, setClientSecret] = useState('');
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (!clientId.trim()) return;
    onSignIn({ clientId: clientId.trim(), ...(clientSecret ? { clientSecret } : {}), fresh: true });
  };
  return (
    <details open={open}>
      <summary>Use an OAuth app you registered</summary>
      <form onSubmit={submit} noValidate>
        <p className="hint">
          For providers that do not let apps register themselves: register an app with them, with the redirect
          URI <code>http://127.0.0.1/callback</code> (any port), and enter its client ID here. The secret, if
          it has one, goes to your keychain.
        </p>
        <div className="row">
          <div className="field">
            <label htmlFor={`${id}-client`}>Client ID</label>
            <input
              id={`${id}-client`}
              className="mono"
              autoComplete="off"
              value={clientId}
              onChange={(e) => setClientId(e.target.value)}
            />
          </div>
          <div className="field">
            <label htmlFor={`${id}-secret`}>Client secret (optional)</label>
            <input
              id={`${id}-secret`}
              type="password"
              className="mono"
              autoComplete="off"
              value={clientSecret}
              onChange={(e) => setClientSecret(e.target.value)}
            />
          </div>
        </div>
        <div className="form-actions">
          <button type="submit" disabled={!clientId.trim()}>
            Sign in with this app
          </button>
        </div>
      </form>
    </details>
  );
}
