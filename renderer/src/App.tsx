import { lazy, Suspense, useState, type ReactNode } from 'react';
import { heldBack } from '../../shared/status.ts';
import { useConnection, useLastKnownAt } from './api/context.tsx';
import { useStatus } from './api/hooks.ts';
import { EditorSyncNotice } from './components/EditorSyncNotice.tsx';
import { Loading } from './components/Feedback.tsx';
import { formatClock } from './lib/format.ts';
import { href, useRoute, type Route } from './router.ts';
import { ServersView } from './views/ServersView.tsx';

// The Servers view is where everyone lands, so it ships in the first bundle; the rest load on demand.
const ServerDetailView = lazy(() => import('./views/ServerDetailView.tsx'));
const AddServerView = lazy(() => import('./views/AddServerView.tsx'));
const ApprovalsView = lazy(() => import('./views/ApprovalsView.tsx'));
const EditorsView = lazy(() => import('./views/EditorsView.tsx'));
const SecretsView = lazy(() => import('./views/SecretsView.tsx'));
const ProjectsView = lazy(() => import('./views/ProjectsView.tsx'));
const SettingsView = lazy(() => import('./views/SettingsView.tsx'));
const CatalogView = lazy(() => import('./views/CatalogView.tsx'));

function view(route: Route): ReactNode {
  switch (route.view) {
    case 'servers':
      return <ServersView />;
    case 'add':
      return <AddServerView />;
    case 'server':
      return <ServerDetailView key={route.name} name={route.name} tab={route.tab} />;
    case 'approvals':
      return <ApprovalsView server={route.server} />;
    case 'editors':
      return <EditorsView />;
    case 'secrets':
      return <SecretsView />;
    case 'projects':
      return <ProjectsView />;
    case 'settings':
      return <SettingsView />;
    case 'catalog':
      return <CatalogView key={route.server ?? ''} server={route.server} version={route.version} />;
  }
}

/** `?signin=expired` after a spent or stale sign-in link; read once, then taken out of the address bar. */
function useSigninNotice(): boolean {
  const [expired] = useState(() => {
    const params = new URLSearchParams(window.location.search);
    const value = params.get('signin') === 'expired';
    if (params.has('signin'))
      window.history.replaceState(null, '', window.location.pathname + window.location.hash);
    return value;
  });
  return expired;
}

export function App() {
  const route = useRoute();
  const connection = useConnection();
  const status = useStatus();
  const expired = useSigninNotice();

  // Seen not running, then signed out: it came back without this browser's sign-in (every browser
  // was signed out meanwhile, or its home was reset).
  const [wasOffline, setWasOffline] = useState(false);
  if (connection === 'offline' && !wasOffline) setWasOffline(true);
  if (connection === 'signed-out') return <SignedOut expired={expired} restarted={wasOffline} />;
  const offline = connection === 'offline';

  // What waits for the person: approvals, sign-ins and servers whose changed tools, prompts or
  // instructions wait for a decision.
  const pending =
    status.data?.servers.filter(
      (s) => s.state === 'pending-approval' || s.state === 'needs-sign-in' || heldBack(s).length > 0,
    ).length ?? 0;
  const current = route.view === 'server' || route.view === 'add' ? 'servers' : route.view;
  const nav: { view: Exclude<Route['view'], 'server' | 'add'>; label: string; badge?: number }[] = [
    { view: 'servers', label: 'Servers' },
    { view: 'catalog', label: 'Catalog' },
    { view: 'approvals', label: 'Approvals', badge: pending },
    { view: 'editors', label: 'Editors' },
    { view: 'projects', label: 'Projects' },
    { view: 'secrets', label: 'Secrets' },
    { view: 'settings', label: 'Settings' },
  ];

  return (
    <div className="app">
      <button
        type="button"
        className="skip-link"
        onClick={() => document.querySelector<HTMLElement>('main h1')?.focus()}
      >
        Skip to content
      </button>
      <nav className="sidebar" aria-label="Sections">
        <div className="brand">
          <img src="./favicon.svg" alt="" width="22" height="22" />
          <span className="brand-name">Switchboard</span>
        </div>
        <ul>
          {nav.map((item) => (
            <li key={item.view}>
              <a
                href={href({ view: item.view } as Route)}
                aria-current={current === item.view ? 'page' : undefined}
              >
                <span>{item.label}</span>
                {item.badge ? (
                  <span className="badge" aria-label={`${item.badge} waiting`} data-testid="approvals-badge">
                    {item.badge}
                  </span>
                ) : null}
              </a>
            </li>
          ))}
        </ul>
        <ConnectionIndicator />
      </nav>
      <main id="main">
        {offline ? <NotRunning /> : null}
        {status.data?.configError && !offline ? (
          <div className="banner error" role="alert">
            <strong>servers.json has errors — the last good configuration keeps running.</strong>
            <pre>{status.data.configError}</pre>
          </div>
        ) : null}
        {offline ? null : <EditorSyncNotice />}
        {/* Every button and field of the view waits while Switchboard is not running; links still work. */}
        <fieldset className="view-guard" disabled={offline} role="none">
          <Suspense fallback={<Loading what="view" />}>{view(route)}</Suspense>
        </fieldset>
      </main>
    </div>
  );
}

function ConnectionIndicator() {
  const connection = useConnection();
  const text: Record<typeof connection, string> = {
    connecting: 'Connecting…',
    live: 'Live',
    reconnecting: 'Reconnecting…',
    offline: 'Not running',
    'signed-out': 'Signed out',
  };
  return (
    <p className={`connection conn-${connection}`} role="status" aria-live="polite">
      <span aria-hidden="true" className="dot" />
      {text[connection]}
    </p>
  );
}

/**
 * `serve` stopped (or the app quit): said plainly, with how to start it again. The servers listed show
 * how they stood when it stopped (the views say so); the page reconnects by itself once it is back.
 */
function NotRunning() {
  const lastKnownAt = useLastKnownAt();
  return (
    <div className="banner error not-running" role="alert" data-testid="not-running">
      <p>
        <strong>Switchboard is not running</strong>
        {lastKnownAt === undefined ? '.' : ` (it stopped at ${formatClock(lastKnownAt)}).`} Your servers are
        not running either, and editors cannot reach them. This page shows how things stood when it stopped;
        its buttons wait until it is back.
      </p>
      <p>
        Start it again with <code>npx switchboard serve</code> in a terminal (or open the Switchboard app).
        This page reconnects by itself when it is back.
      </p>
    </div>
  );
}

function SignedOut({ expired, restarted }: { expired: boolean; restarted: boolean }) {
  return (
    <main className="signed-out">
      <h1>Sign in to Switchboard</h1>
      {restarted ? (
        <p role="status">
          Switchboard is running again, but it no longer knows this browser’s sign-in (every browser was
          signed out, or its home was reset), so this browser needs a new link.
        </p>
      ) : null}
      {expired ? (
        <p className="error" role="alert">
          That sign-in link was already used or has expired (links work once, for 10 minutes).
        </p>
      ) : null}
      <p>
        Open the sign-in link that <code>switchboard serve</code> printed in its terminal. For a new link,
        run:
      </p>
      <pre>npx switchboard ui</pre>
      <p className="muted">
        The link is taken out of the address bar at once. This browser then keeps a key that works only at
        this address, for 30 days, also after Switchboard restarts (until you sign it out in Settings).
      </p>
    </main>
  );
}
