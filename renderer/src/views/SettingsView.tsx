import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useId, useState, type ReactNode } from 'react';
import { clientMetadataUrlProblem } from '../../../shared/sign-in.ts';
import { formatBytes } from '../../../shared/store.ts';
import type { Settings } from '../../../shared/ui-api.ts';
import { useApi } from '../api/context.tsx';
import { useBrowserSessions, useCommand, useSettings, useStoreUsage, useTokens } from '../api/hooks.ts';
import { keys } from '../api/keys.ts';
import { CatalogRegistrySetting } from '../components/CatalogRegistrySetting.tsx';
import { ConfirmButton } from '../components/ConfirmButton.tsx';
import { EmptyState, ErrorText, Loading } from '../components/Feedback.tsx';
import { NumberSetting, SettingForm, SettingInput } from '../components/SettingForm.tsx';
import { ViewTitle } from '../components/ViewTitle.tsx';
import { formatDateTime } from '../lib/format.ts';
import { href } from '../router.ts';

export default function SettingsView() {
  const settings = useSettings();
  return (
    <section>
      <ViewTitle>Settings</ViewTitle>
      {settings.isPending ? <Loading what="settings" /> : null}
      {settings.error ? <ErrorText error={settings.error} /> : null}
      {settings.data ? <General settings={settings.data} /> : null}
      {settings.data ? <SignInSettings settings={settings.data} /> : null}
      <CatalogRegistrySetting />
      <PackageStore updateChecks={settings.data?.updateChecks} />
      <Tokens />
      <BrowserSignIns />
    </section>
  );
}

/** The package store's size, what uses it, and a button to remove what nothing uses. */
function PackageStore({ updateChecks }: { updateChecks: boolean | undefined }) {
  const api = useApi();
  const id = useId();
  const usage = useStoreUsage();
  const daily = useCommand(
    (on: boolean) => api.saveSettings({ updateChecks: on }),
    [keys.settings, keys.updates],
  );
  const prune = useCommand(() => api.pruneStore(), [keys.store]);
  const unused = usage.data?.installs.filter((i) => i.servers.length === 0) ?? [];
  return (
    <div className="card" aria-labelledby={`${id}-store`} data-testid="package-store">
      <h2 id={`${id}-store`}>Package store</h2>
      <p className="muted">
        Servers run with npx, uvx or docker start from the exact packages you approved, installed here.
        Nothing updates by itself: <a href={href({ view: 'servers' })}>Servers</a> says when a newer release
        is out (<strong>Check for updates</strong> there, or <code>switchboard outdated</code>), and a
        server’s page shows what its update changes before you approve it (or{' '}
        <code>switchboard update NAME</code>).
      </p>
      {updateChecks !== undefined ? (
        <SettingSwitch
          label="Check for updates once a day"
          checked={daily.isPending && daily.variables !== undefined ? daily.variables : updateChecks}
          pending={daily.isPending}
          onChange={(on) => daily.mutate(on)}
          error={
            daily.error ? <ErrorText error={daily.error}>The daily check was not changed: </ErrorText> : null
          }
        >
          Switchboard asks the packages’ registries about newer releases once a day while it runs (never in
          its first ten minutes), and only says what it found. Off: only when you ask.
        </SettingSwitch>
      ) : null}
      {usage.error ? <ErrorText error={usage.error} /> : null}
      {usage.data ? (
        <>
          <p>
            <code>{usage.data.folder}</code>:{' '}
            <strong data-testid="store-size">{formatBytes(usage.data.bytes)}</strong> in{' '}
            {usage.data.installs.length} install{usage.data.installs.length === 1 ? '' : 's'}
          </p>
          {usage.data.installs.length ? (
            <ul className="plain">
              {usage.data.installs.map((install) => (
                <li key={install.id}>
                  <code>{install.id}</code> {formatBytes(install.bytes)} —{' '}
                  {install.servers.length ? install.servers.join(', ') : 'used by no server'}
                </li>
              ))}
            </ul>
          ) : null}
          <div className="form-actions">
            <button type="button" disabled={prune.isPending} onClick={() => prune.mutate(undefined)}>
              {prune.isPending ? 'Removing…' : `Remove unused${unused.length ? ` (${unused.length})` : ''}`}
            </button>
            {prune.data ? (
              <span className="muted" role="status">
                {prune.data.removed.length
                  ? `Removed ${prune.data.removed.length}, ${formatBytes(prune.data.freedBytes)} freed.`
                  : 'Nothing to remove.'}
              </span>
            ) : null}
          </div>
          {prune.error ? <ErrorText error={prune.error} /> : null}
        </>
      ) : null}
    </div>
  );
}

function General({ settings }: { settings: Settings }) {
  const api = useApi();
  const id = useId();
  const [port, setPort] = useState(String(settings.configuredPort ?? settings.port));
  const save = useCommand((p: number) => api.saveSettings({ port: p }), [keys.settings]);
  const parsed = Number(port);
  const problem =
    Number.isInteger(parsed) && parsed >= 1 && parsed <= 65535
      ? undefined
      : 'a port is a whole number from 1 to 65535';
  const nextPort = settings.configuredPort ?? settings.defaultPort;
  return (
    <>
      <SettingForm
        title="Bridge"
        onSave={() => save.mutate(parsed)}
        save={save}
        invalid={problem !== undefined}
        submitLabel="Save port"
        savedText="Saved to state.json."
      >
        <p className="muted">
          Editors reach your servers at <code>http://127.0.0.1:{settings.port}/mcp</code>. Keep the port fixed
          so editor config files keep working across restarts.
        </p>
        <NumberSetting
          label="Port"
          problem={problem}
          value={port}
          onValue={setPort}
          inputMode="numeric"
          hint={
            <>
              Now listening on {settings.port}
              {nextPort !== settings.port ? `; ${nextPort} from the next start` : ''}. A change takes effect
              the next time Switchboard starts; sync editors afterwards.
            </>
          }
        />
      </SettingForm>

      <IdleTimeout settings={settings} />

      <AutoSync enabled={settings.autoSync} />

      <section className="card" aria-labelledby={`${id}-app`}>
        <h2 id={`${id}-app`}>This computer</h2>
        {settings.startAtLogin === null ? null : <StartAtLogin enabled={settings.startAtLogin} />}
        <dl className="facts vertical">
          <div>
            <dt>Switchboard home</dt>
            <dd className="mono">{settings.home}</dd>
          </div>
          <div>
            <dt>Servers file</dt>
            <dd className="mono">{settings.serversFile}</dd>
          </div>
          {settings.startAtLogin === null ? (
            <div>
              <dt>Start at login</dt>
              <dd>
                <span className="muted">
                  Only in the desktop app (this is headless mode: <code>switchboard serve</code>).
                </span>
              </dd>
            </div>
          ) : null}
          <div>
            <dt>Theme</dt>
            <dd>Follows your system’s light or dark setting.</dd>
          </div>
        </dl>
      </section>
    </>
  );
}

/** "10 minutes", "90 seconds", "always running" */
function describeIdle(seconds: number): string {
  if (seconds === 0) return 'always running';
  if (seconds % 60 === 0) return `${seconds / 60} minute${seconds === 60 ? '' : 's'}`;
  return `${seconds} seconds`;
}

/**
 * The idle timeout of servers that set none in servers.json, in minutes (0: always running). Saved to
 * state.json and applied to running servers at once.
 */
function IdleTimeout({ settings }: { settings: Settings }) {
  const api = useApi();
  const [minutes, setMinutes] = useState(String(settings.idleTimeout / 60));
  const save = useCommand(
    (seconds: number | null) => api.saveSettings({ idleTimeout: seconds }),
    [keys.settings, keys.status],
  );
  const parsed = Number(minutes);
  const seconds = Math.round(parsed * 60);
  const problem =
    minutes.trim() !== '' && Number.isFinite(parsed) && parsed >= 0 && seconds <= 7 * 24 * 3600
      ? undefined
      : 'a number of minutes from 0 (always running) to 10080 (a week)';
  return (
    <SettingForm
      title="Idle servers"
      onSave={() => save.mutate(seconds)}
      save={save}
      invalid={problem !== undefined}
      submitLabel="Save idle timeout"
      savedText="Saved; running servers follow it now."
      actions={
        settings.configuredIdleTimeout !== null ? (
          <button
            type="button"
            disabled={save.isPending}
            onClick={() =>
              save.mutate(null, { onSuccess: () => setMinutes(String(settings.defaultIdleTimeout / 60)) })
            }
          >
            Back to the default
          </button>
        ) : null
      }
    >
      <p className="muted">
        A server no editor has used for this long is stopped, and started again by the next request to it.
        Editors still see its tools meanwhile. A server can set its own in servers.json (
        <code>&quot;idleTimeout&quot;: seconds</code>, 0 keeps it always running).
      </p>
      <NumberSetting
        label="Stop after (minutes without requests)"
        problem={problem}
        value={minutes}
        onValue={setMinutes}
        inputMode="decimal"
        hint={
          <>
            Now: {describeIdle(settings.idleTimeout)}
            {settings.configuredIdleTimeout === null
              ? ' (the default)'
              : `; the default is ${describeIdle(settings.defaultIdleTimeout)}`}
            . 0 keeps every server running all the time.
          </>
        }
      />
    </SettingForm>
  );
}

/**
 * The Client ID Metadata Document URL Switchboard signs in with where an authorization server takes
 * one (the document the project publishes); empty: Switchboard registers itself (dynamic
 * registration) instead.
 */
function SignInSettings({ settings }: { settings: Settings }) {
  const api = useApi();
  const [url, setUrl] = useState(settings.clientMetadataUrl ?? '');
  const save = useCommand(
    (value: string) => api.saveSettings({ clientMetadataUrl: value || null }),
    [keys.settings],
  );
  const trimmed = url.trim();
  const problem = trimmed ? clientMetadataUrlProblem(trimmed) : undefined;
  return (
    <SettingForm
      title="Sign-in to remote servers"
      onSave={() => save.mutate(trimmed)}
      save={save}
      invalid={problem !== undefined}
      submitLabel="Save"
      savedText="Saved to state.json."
    >
      <p className="muted">
        Remote servers that ask for a sign-in (OAuth) get one from Switchboard, in your browser; editors never
        see the tokens. Where a server’s authorization server accepts a Client ID Metadata Document,
        Switchboard identifies itself with this one; otherwise, or when this is empty, it registers itself.
      </p>
      <SettingInput
        label="Client ID Metadata Document URL"
        problem={problem}
        value={url}
        onValue={setUrl}
        input={{
          className: 'mono',
          inputMode: 'url',
          placeholder: 'https://example.com/switchboard/client-metadata.json',
        }}
        hint={
          <>
            An https:// address with a path. <code>switchboard try --client-metadata-url URL</code> overrides
            it for one check.
          </>
        }
      />
    </SettingForm>
  );
}

/**
 * The one switch for automatic editor sync: on (the default), editors' files follow every approved
 * server; off, they change only when the person syncs (Editors view, tray, `switchboard sync`).
 */
function AutoSync({ enabled }: { enabled: boolean }) {
  const api = useApi();
  const id = useId();
  const change = useCommand(
    (on: boolean) => api.saveSettings({ autoSync: on }),
    [keys.settings, keys.editors],
  );
  const shown = change.isPending && change.variables !== undefined ? change.variables : enabled;
  return (
    <section className="card" aria-labelledby={`${id}-sync`}>
      <h2 id={`${id}-sync`}>Editors</h2>
      <SettingSwitch
        label="Sync editors automatically"
        checked={shown}
        pending={change.isPending}
        onChange={(on) => change.mutate(on)}
        error={
          change.error ? <ErrorText error={change.error}>Automatic sync was not changed: </ErrorText> : null
        }
      >
        {shown ? (
          'Every editor found on this computer gets each server you approve, as soon as you approve it.'
        ) : (
          <>
            Editors’ files change only when you sync them: in Editors, from the tray, or with{' '}
            <code>switchboard sync</code>.
          </>
        )}
      </SettingSwitch>
    </section>
  );
}

/**
 * Desktop app only. While the change is under way the switch shows what was asked for; the settings
 * answer afterwards says what the system really did (a refused login item flips it back), and a
 * failure is said in words.
 */
function StartAtLogin({ enabled }: { enabled: boolean }) {
  const api = useApi();
  const client = useQueryClient();
  const change = useMutation({
    mutationFn: (on: boolean) => api.setStartAtLogin(on),
    onSuccess: async (_done, on) => {
      client.setQueryData<Settings>(keys.settings, (old) => (old ? { ...old, startAtLogin: on } : old));
      await client.invalidateQueries({ queryKey: keys.settings });
    },
  });
  return (
    <SettingSwitch
      className="start-at-login"
      label="Start Switchboard when you log in"
      checked={change.isPending ? (change.variables ?? enabled) : enabled}
      pending={change.isPending}
      onChange={(on) => change.mutate(on)}
      error={
        change.error ? <ErrorText error={change.error}>Start at login was not changed: </ErrorText> : null
      }
    >
      It starts in the tray without opening this window, so your servers are ready when an editor needs them.
    </SettingSwitch>
  );
}

/** An on/off setting: the switch, what it means (children), and an error when a change failed. */
function SettingSwitch(props: {
  label: string;
  checked: boolean;
  pending: boolean;
  onChange: (on: boolean) => void;
  error: ReactNode;
  className?: string;
  children: ReactNode;
}) {
  const id = useId();
  return (
    <div className={props.className ? `field ${props.className}` : 'field'}>
      <label className="switch">
        <input
          type="checkbox"
          role="switch"
          checked={props.checked}
          disabled={props.pending}
          onChange={(e) => props.onChange(e.target.checked)}
          aria-describedby={`${id}-hint`}
        />
        <span className="track" aria-hidden="true" />
        <span>{props.label}</span>
      </label>
      <p className="hint" id={`${id}-hint`}>
        {props.children}
      </p>
      {props.error}
    </div>
  );
}

function Tokens() {
  const api = useApi();
  const id = useId();
  const tokens = useTokens();
  const rotate = useCommand((name: string) => api.rotateToken(name), [keys.tokens]);
  const revoke = useCommand((name: string) => api.revokeToken(name), [keys.tokens]);
  const [done, setDone] = useState<string | undefined>();
  return (
    <section className="card" aria-labelledby={`${id}-tokens`}>
      <h2 id={`${id}-tokens`}>Editor tokens</h2>
      <p className="muted">
        Each editor reaches the bridge with a token of its own. Rotating issues a new one (the old one stops
        working at once; sync the editor so its file gets the new token). Revoking locks that editor out.
        Tokens are never shown.
      </p>
      {tokens.isPending ? <Loading what="tokens" /> : null}
      {tokens.error ? <ErrorText error={tokens.error} /> : null}
      {tokens.data && tokens.data.length === 0 ? (
        <EmptyState title="No editor tokens yet">
          <p>
            Syncing an editor creates its token. For another client, run{' '}
            <code>npx switchboard token create NAME</code>.
          </p>
        </EmptyState>
      ) : null}
      {tokens.data && tokens.data.length > 0 ? (
        <table data-testid="tokens-table">
          <thead>
            <tr>
              <th scope="col">Editor or client</th>
              <th scope="col">Issued</th>
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {tokens.data.map((t) => (
              <tr key={t.name}>
                <th scope="row" className="mono">
                  {t.name}
                </th>
                <td>{formatDateTime(t.createdAt)}</td>
                <td className="row-actions">
                  <ConfirmButton
                    className=""
                    label="Rotate"
                    confirmLabel={`Rotate ${t.name}’s token`}
                    onConfirm={() =>
                      rotate.mutate(t.name, { onSuccess: () => setDone(`Issued a new token for ${t.name}.`) })
                    }
                  />
                  <ConfirmButton
                    label="Revoke"
                    confirmLabel={`Revoke ${t.name}’s token`}
                    onConfirm={() =>
                      revoke.mutate(t.name, { onSuccess: () => setDone(`Revoked ${t.name}’s token.`) })
                    }
                  />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      {done ? (
        <p className="ok-text small" role="status">
          {done}
        </p>
      ) : null}
      {rotate.error ? <ErrorText error={rotate.error} /> : null}
      {revoke.error ? <ErrorText error={revoke.error} /> : null}
    </section>
  );
}

/**
 * Browsers signed in to the UI of `switchboard serve`: each keeps its own key for this address only,
 * across restarts, for 30 days. Signing out here forgets it at once.
 */
function BrowserSignIns() {
  const api = useApi();
  const id = useId();
  const sessions = useBrowserSessions();
  const signOut = useCommand((which: 'this' | 'all') => api.signOutBrowsers(which), [keys.browserSessions]);
  const data = sessions.data;
  return (
    <section className="card" aria-labelledby={`${id}-browsers`} data-testid="browser-sign-ins">
      <h2 id={`${id}-browsers`}>Browser sign-ins</h2>
      <p className="muted">
        A browser opened with a sign-in link from <code>switchboard serve</code> keeps a key that works only
        at this address (this port), for 30 days, also after Switchboard restarts. It is never a cookie, so no
        other page on this computer can use it.
      </p>
      {sessions.isPending ? <Loading what="browser sign-ins" /> : null}
      {sessions.error ? <ErrorText error={sessions.error} /> : null}
      {data ? (
        <p>
          {data.count === 0
            ? 'No browser is signed in.'
            : `${data.count} browser${data.count === 1 ? ' is' : 's are'} signed in.`}
          {data.current ? ` This one until ${formatDateTime(data.current.expiresAt)}.` : ''}
        </p>
      ) : null}
      {data && data.count > 0 ? (
        <div className="form-actions">
          {data.current ? (
            <button type="button" onClick={() => signOut.mutate('this')} disabled={signOut.isPending}>
              Sign out this browser
            </button>
          ) : null}
          <ConfirmButton
            label="Sign out every browser"
            confirmLabel="Sign out every browser now"
            onConfirm={() => signOut.mutate('all')}
          />
        </div>
      ) : null}
      {signOut.error ? <ErrorText error={signOut.error} /> : null}
    </section>
  );
}
