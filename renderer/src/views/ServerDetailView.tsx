import { lazy, Suspense, useEffect, useMemo, useState } from 'react';
import type { FieldIssue } from '../../../shared/server-validation.ts';
import { heldBack, type ServerStatus } from '../../../shared/status.ts';
import { wordList } from '../../../shared/word-list.ts';
import {
  UiApiError,
  type AddedServer,
  type ServerConfigView,
  type ToolsResponse,
} from '../../../shared/ui-api.ts';
import { useApi } from '../api/context.tsx';
import { useActivity, useCommand, useServerConfig, useStatus, useTools } from '../api/hooks.ts';
import { ActivitySummary } from '../components/ActivityCharts.tsx';
import { keys } from '../api/keys.ts';
import { ConfirmButton } from '../components/ConfirmButton.tsx';
import { EmptyState, ErrorText, Loading } from '../components/Feedback.tsx';
import { JsonProblems } from '../components/JsonProblems.tsx';
import { LogView } from '../components/LogView.tsx';
import { MovedSecrets } from '../components/MovedSecrets.tsx';
import { ServerUpdate } from '../components/PackageUpdates.tsx';
import { ServerActions } from '../components/ServerActions.tsx';
import { ServerForm } from '../components/ServerForm.tsx';
import { SignInPanel } from '../components/SignIn.tsx';
import { StateBadge } from '../components/StateBadge.tsx';
import { ToolSwitch } from '../components/ToolSwitch.tsx';
import { ViewTitle } from '../components/ViewTitle.tsx';
import { formatDuration } from '../lib/format.ts';
import { checkServerJson } from '../lib/json-lint.ts';
import { addedNote, dropNote, readNote } from '../lib/notes.ts';
import { useNow } from '../lib/use-now.ts';
import { configFromDraft, draftFromConfig, type Draft } from '../lib/server-draft.ts';
import { href, navigate, type ServerTab } from '../router.ts';
import { SandboxRefusal } from '../components/SandboxGrant.tsx';

const JsonEditor = lazy(() => import('../components/JsonEditor.tsx'));

const TABS: { tab: ServerTab; label: string }[] = [
  { tab: 'config', label: 'Configuration' },
  { tab: 'tools', label: 'Tools' },
  { tab: 'activity', label: 'Activity' },
  { tab: 'logs', label: 'Logs' },
];

export default function ServerDetailView({ name, tab }: { name: string; tab: ServerTab }) {
  const api = useApi();
  const status = useStatus();
  const server = status.data?.servers.find((s) => s.name === name);
  const remove = useCommand(() => api.removeServer(name), [keys.status]);
  const now = useNow(server?.state === 'running');
  // Just added here: say where its literal secrets went (once; a later visit does not repeat it).
  const [added] = useState(() => readNote(addedNote(name)) as AddedServer | undefined);
  useEffect(() => () => dropNote(addedNote(name)), [name]);

  if (status.data && !server) {
    return (
      <section>
        <ViewTitle>{name}</ViewTitle>
        <EmptyState title={`There is no server named “${name}”`}>
          <p>
            It may have been removed from <code>servers.json</code>. Back to{' '}
            <a href={href({ view: 'servers' })}>Servers</a>.
          </p>
        </EmptyState>
      </section>
    );
  }

  return (
    <section className="server-detail">
      <nav aria-label="Breadcrumb" className="crumbs">
        <a href={href({ view: 'servers' })}>Servers</a> <span aria-hidden="true">›</span> {name}
      </nav>
      <ViewTitle
        actions={
          <ConfirmButton
            label="Remove"
            confirmLabel={`Remove ${name} from servers.json`}
            onConfirm={() => remove.mutate(undefined, { onSuccess: () => navigate({ view: 'servers' }) })}
          />
        }
      >
        {name} {server ? <StateBadge state={server.state} /> : null}
      </ViewTitle>
      {remove.error ? <ErrorText error={remove.error} /> : null}
      {server ? (
        <div className="detail-summary">
          <dl className="facts">
            <div>
              <dt>Transport</dt>
              <dd>{server.transport === 'http' ? 'remote (HTTP)' : 'local (stdio)'}</dd>
            </div>
            <div>
              <dt>Process</dt>
              <dd>{server.pid ?? '—'}</dd>
            </div>
            <div>
              <dt>Restarts</dt>
              <dd>{server.restarts}</dd>
            </div>
            <div>
              <dt>Tools</dt>
              <dd>{server.toolCount ?? '—'}</dd>
            </div>
            {server.state === 'idle' ? (
              <div>
                <dt>Idle</dt>
                <dd>starts at the next request</dd>
              </div>
            ) : null}
            {server.state === 'backoff' && server.nextRetryAt ? (
              <div>
                <dt>Next try</dt>
                <dd>{new Date(server.nextRetryAt).toLocaleTimeString()}</dd>
              </div>
            ) : null}
            {server.state === 'running' && server.since ? (
              <div>
                <dt>Running since</dt>
                <dd>
                  {new Date(server.since).toLocaleTimeString()}{' '}
                  <span className="muted">(up {formatDuration(Math.max(0, now - server.since))})</span>
                </dd>
              </div>
            ) : null}
          </dl>
          <ServerActions server={server} />
        </div>
      ) : null}
      {server?.state === 'pending-approval' ? (
        <div className="banner warn" role="status">
          <strong>Waiting for your approval.</strong> Nothing runs until you approve this exact configuration.{' '}
          <a className="button primary small" href={href({ view: 'approvals', server: name })}>
            Review and approve
          </a>
        </div>
      ) : null}
      {added?.secrets.length ? (
        <div className="banner ok" role="status" data-testid="added-secrets">
          <MovedSecrets server={added} />
        </div>
      ) : null}
      {server && heldBack(server).length > 0 ? (
        <div className="banner warn" role="status" data-testid="tools-held">
          <strong>{heldSentence(server)}</strong> Editors do not get the changes until you accept them
          {server.instructionsHeld ? ' (meanwhile they get the instructions you approved)' : ''}.{' '}
          <a className="button small" href={href({ view: 'approvals', server: name })}>
            Review the change
          </a>
        </div>
      ) : null}
      {server ? <ServerUpdate name={name} /> : null}
      {server?.state === 'needs-sign-in' ? (
        <div className="banner warn" role="status">
          <strong>{name} needs you to sign in.</strong> Editors cannot use it until you do: sign in below, in
          your browser.
        </div>
      ) : server?.lastError && server.state !== 'running' ? (
        <div className="banner error" role="status">
          <strong>Last error:</strong> {server.lastError}
        </div>
      ) : server?.sandboxRefused ? (
        <div className="banner warn" role="status">
          <strong>Sandbox:</strong> <SandboxRefusal server={server} />
        </div>
      ) : null}
      {server?.access ? (
        <p className="muted" data-testid="server-access">
          {server.access}
        </p>
      ) : null}
      {server ? <SignInPanel server={server} /> : null}

      <nav aria-label={`${name} sections`} className="tabs">
        {TABS.map((t) => (
          <a
            key={t.tab}
            aria-current={tab === t.tab ? 'page' : undefined}
            href={href({ view: 'server', name, tab: t.tab })}
          >
            {t.label}
            {t.tab === 'tools' ? (
              // Always there (a dash until known), so the tabs never move when a count arrives.
              <span
                className="count"
                aria-label={server?.toolCount ? `${server.toolCount} tools` : 'not known yet'}
              >
                {server?.toolCount ?? '–'}
              </span>
            ) : null}
          </a>
        ))}
      </nav>
      <div className="tabpanel">
        {tab === 'config' ? <ConfigPanel name={name} /> : null}
        {tab === 'tools' ? <ToolsPanel name={name} /> : null}
        {tab === 'activity' ? <ActivityPanel name={name} /> : null}
        {tab === 'logs' ? <LogView server={name} /> : null}
      </div>
    </section>
  );
}

function same(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

function ConfigPanel({ name }: { name: string }) {
  const config = useServerConfig(name);
  if (config.isPending) return <Loading what="configuration" />;
  if (config.error) {
    return (
      <ErrorText error={config.error}>
        The configuration cannot be read right now (fix <code>servers.json</code> first):{' '}
      </ErrorText>
    );
  }
  return <ConfigEditor name={name} view={config.data} />;
}

/**
 * Form and raw JSON editing of one entry. The file is the truth: a hand edit of servers.json shows up
 * here at once, unless you are in the middle of an edit, in which case you choose.
 */
function ConfigEditor({ name, view }: { name: string; view: ServerConfigView }) {
  const api = useApi();
  const [mode, setMode] = useState<'form' | 'json'>('form');
  // What the form overlays: the file's entry, or what the raw editor last produced.
  const [base, setBase] = useState<unknown>(view.config);
  const [draft, setDraft] = useState<Draft>(() => draftFromConfig(view.config));
  const [text, setText] = useState(() => JSON.stringify(view.config, null, 2));
  const [loadedFrom, setLoadedFrom] = useState<unknown>(view.config);
  const [conflict, setConflict] = useState(false);
  const [saved, setSaved] = useState(false);
  const [moved, setMoved] = useState<string | undefined>();

  const current = useMemo(() => {
    if (mode === 'form') return configFromDraft(draft, base);
    const check = checkServerJson(text);
    return check.value;
  }, [mode, draft, base, text]);
  const dirty = !same(current, view.config);

  const adopt = (config: unknown) => {
    setBase(config);
    setDraft(draftFromConfig(config));
    setText(JSON.stringify(config, null, 2));
    setLoadedFrom(config);
    setConflict(false);
  };

  // The file changed (a hand edit, a save, a secret move): follow it unless that would lose an edit.
  if (view.config !== loadedFrom) {
    const editing = !same(current, loadedFrom);
    if (!editing || same(current, view.config)) adopt(view.config);
    else if (!conflict) {
      setConflict(true);
      setLoadedFrom(view.config);
    }
  }

  const save = useCommand(
    (config: unknown) => api.saveServer(name, config),
    [keys.config(name), keys.status],
  );
  const move = useCommand(
    (key: string) => api.moveSecret(name, key),
    [keys.config(name), keys.status, keys.secrets],
  );
  const serverIssues: FieldIssue[] = save.error instanceof UiApiError ? save.error.issues : [];

  const submit = (config: unknown) => {
    setSaved(false);
    save.mutate(config, { onSuccess: () => setSaved(true) });
  };

  const switchTo = (next: 'form' | 'json') => {
    if (next === mode) return;
    if (next === 'json') setText(JSON.stringify(configFromDraft(draft, base), null, 2));
    else {
      const check = checkServerJson(text);
      if (check.value !== undefined && typeof check.value === 'object') {
        setBase(check.value);
        setDraft(draftFromConfig(check.value));
      }
    }
    setMode(next);
  };

  const jsonCheck = mode === 'json' ? checkServerJson(text) : undefined;

  return (
    <div className="config-editor">
      <p className="muted small">
        Saving edits <code>{view.file}</code> in place: comments and formatting elsewhere are kept.
      </p>
      {conflict ? (
        <div className="banner warn" role="alert">
          <strong>servers.json changed on disk while you were editing.</strong>
          <button type="button" className="small" onClick={() => adopt(view.config)}>
            Load the file’s version
          </button>
          <button type="button" className="small" onClick={() => setConflict(false)}>
            Keep my edits
          </button>
        </div>
      ) : null}
      {moved ? (
        <div className="banner ok" role="status">
          Stored in the keychain as <code>{moved}</code>; <code>servers.json</code> now says{' '}
          <code>{`\${secret:${moved}}`}</code>. The changed configuration needs your approval.
        </div>
      ) : null}
      <div className="segmented" role="group" aria-label="Editing mode">
        <button type="button" aria-pressed={mode === 'form'} onClick={() => switchTo('form')}>
          Form
        </button>
        <button type="button" aria-pressed={mode === 'json'} onClick={() => switchTo('json')}>
          JSON
        </button>
      </div>
      {mode === 'form' ? (
        <ServerForm
          mode="edit"
          original={base}
          draft={draft}
          onDraft={(d) => {
            setSaved(false);
            setDraft(d);
          }}
          serverIssues={serverIssues}
          literalSecrets={view.literalSecrets}
          storing={move.isPending ? move.variables : undefined}
          onStoreSecret={(key) => move.mutate(key, { onSuccess: (stored) => setMoved(stored) })}
          busy={save.isPending}
          submitLabel="Save to servers.json"
          onSubmit={submit}
          footer={<SaveState dirty={dirty} saved={saved} onReset={() => adopt(view.config)} />}
        />
      ) : (
        <form
          className="json-form"
          onSubmit={(e) => {
            e.preventDefault();
            if (jsonCheck?.ok) submit(jsonCheck.value);
          }}
        >
          <label htmlFor="raw-json" className="label">
            The entry <code>mcpServers.{name}</code> as JSON
          </label>
          <Suspense fallback={<textarea id="raw-json" className="mono" value={text} readOnly rows={12} />}>
            <JsonEditor id="raw-json" value={text} onChange={setText} />
          </Suspense>
          {jsonCheck && !jsonCheck.ok ? (
            <JsonProblems text={text} problems={jsonCheck.problems} />
          ) : (
            <p className="ok-text small">Valid: matches the servers.json schema.</p>
          )}
          <div className="form-actions">
            <button type="submit" className="primary" disabled={!jsonCheck?.ok || save.isPending}>
              {save.isPending ? 'Saving…' : 'Save to servers.json'}
            </button>
            <SaveState dirty={dirty} saved={saved} onReset={() => adopt(view.config)} />
          </div>
        </form>
      )}
      {save.error && serverIssues.length === 0 ? <ErrorText error={save.error} /> : null}
      {move.error ? <ErrorText error={move.error} /> : null}
    </div>
  );
}

function SaveState({ dirty, saved, onReset }: { dirty: boolean; saved: boolean; onReset: () => void }) {
  if (dirty) {
    return (
      <>
        <span className="muted small">Unsaved changes</span>
        <button type="button" className="quiet small" onClick={onReset}>
          Discard
        </button>
      </>
    );
  }
  return saved ? (
    <span className="ok-text small" role="status">
      Saved. Changes that affect what runs need approval.
    </span>
  ) : null;
}

function ToolsPanel({ name }: { name: string }) {
  const api = useApi();
  const tools = useTools(name);
  const change = useCommand(
    ({ tool, on }: { tool: string; on: boolean }) => api.changeServerTools(name, { tool, on }),
    [keys.tools(name), ['editor-tools']],
  );
  if (tools.isPending) return <Loading what="tools" />;
  if (tools.error) return <ErrorText error={tools.error} />;
  if (!tools.data.running && !tools.data.remembered) {
    return (
      <EmptyState title="Not running">
        <p>The tools this server offers are listed once it is running.</p>
      </EmptyState>
    );
  }
  if (tools.data.tools.length === 0) {
    return (
      <EmptyState title="No tools">
        <p>The server is running but offers no tools (it may offer resources or prompts instead).</p>
      </EmptyState>
    );
  }
  return (
    <>
      {tools.data.remembered ? (
        <p className="muted small">
          As the server listed them when it last ran; editors are answered from this list, and the server
          starts when one of its tools is called.
        </p>
      ) : null}
      <ToolCount tools={tools.data.tools} />
      {change.error ? <ErrorText error={change.error} /> : null}
      <ToolList
        tools={tools.data.tools}
        busy={change.isPending}
        onSwitch={(tool, on) => change.mutate({ tool, on })}
      />
    </>
  );
}

/** How many tools editors get of this server, and roughly what they cost each turn. */
function ToolCount({ tools }: { tools: ToolsResponse['tools'] }) {
  const offered = tools.filter((t) => !t.off && !t.held);
  const tokens = offered.reduce((sum, t) => sum + (t.tokens ?? 0), 0);
  return (
    <p className="muted small" data-testid="tools-offered">
      Editors get {offered.length} of its {tools.length} tools, about {tokens.toLocaleString()} tokens of
      definitions on every turn. A switch turns a tool off for every editor (its <code>"tools"</code> in
      servers.json); choose per editor in Editors.
    </p>
  );
}

function ToolList({
  tools,
  busy,
  onSwitch,
}: {
  tools: ToolsResponse['tools'];
  busy: boolean;
  onSwitch: (tool: string, on: boolean) => void;
}) {
  return (
    <ul className="tools" data-testid="tools-list">
      {tools.map((tool) => (
        <li
          key={tool.name}
          className={tool.held ? 'held' : tool.off ? 'off' : undefined}
          data-tool={tool.name}
        >
          <div className="tool-head">
            <ToolSwitch
              label={`Offer ${tool.name} to editors`}
              on={!tool.off}
              busy={busy}
              onChange={(on) => onSwitch(tool.name, on)}
            />
            <h3 className="mono">
              {tool.name}
              {tool.held ? (
                <span className="held-tag">
                  {tool.held === 'new' ? 'new' : 'changed'}: held back until you accept it
                </span>
              ) : null}
            </h3>
          </div>
          {tool.off ? <p className="small muted">Turned off: no editor gets it.</p> : null}
          {tool.title && tool.title !== tool.name ? <p className="tool-title">{tool.title}</p> : null}
          {tool.description ? <p className="muted">{tool.description}</p> : null}
          {tool.params.length ? (
            <p className="params">
              {tool.params.map((p) => (
                <span key={p.name} className={p.required ? 'param required' : 'param'}>
                  {p.name}
                  {p.type ? <span className="muted">: {p.type}</span> : null}
                  {p.required ? <span className="visually-hidden"> (required)</span> : null}
                </span>
              ))}
            </p>
          ) : null}
        </li>
      ))}
    </ul>
  );
}

function ActivityPanel({ name }: { name: string }) {
  const activity = useActivity(name);
  if (activity.isPending) return <Loading what="activity" />;
  if (activity.error) return <ErrorText error={activity.error} />;
  if (!activity.data) {
    return (
      <EmptyState title="No calls in the last hour">
        <p>Each tool call an editor makes to this server through Switchboard shows here, for an hour.</p>
      </EmptyState>
    );
  }
  return <ActivitySummary activity={activity.data} />;
}

/** "2 tools and its instructions changed since you approved them." */
function heldSentence(s: ServerStatus): string {
  const parts = [
    ...(s.toolsHeld ? [s.toolsHeld === 1 ? '1 tool' : `${s.toolsHeld} tools`] : []),
    ...(s.promptsHeld ? [s.promptsHeld === 1 ? '1 prompt' : `${s.promptsHeld} prompts`] : []),
    ...(s.instructionsHeld ? ['its instructions'] : []),
  ];
  return `${wordList(parts)} changed since you approved them.`;
}
