import { lazy, Suspense, useCallback, useMemo, useState } from 'react';
import { UiApiError, type AddedServer } from '../../../shared/ui-api.ts';
import type { FieldIssue } from '../../../shared/server-validation.ts';
import { useApi } from '../api/context.tsx';
import { useCommand, useStatus } from '../api/hooks.ts';
import { keys } from '../api/keys.ts';
import { ErrorText } from '../components/Feedback.tsx';
import { JsonProblems } from '../components/JsonProblems.tsx';
import { MovedSecrets } from '../components/MovedSecrets.tsx';
import { ServerForm } from '../components/ServerForm.tsx';
import { ViewTitle } from '../components/ViewTitle.tsx';
import { addedNote, leaveNote } from '../lib/notes.ts';
import { emptyDraft, type Draft } from '../lib/server-draft.ts';
import { checkSnippet } from '../lib/server-snippet.ts';
import { href, navigate } from '../router.ts';

const JsonEditor = lazy(() => import('../components/JsonEditor.tsx'));
const AddBundle = lazy(() => import('../components/AddBundle.tsx'));

export default function AddServerView() {
  const [mode, setMode] = useState<'form' | 'json' | 'bundle'>('form');
  return (
    <section className="narrow">
      <nav aria-label="Breadcrumb" className="crumbs">
        <a href={href({ view: 'servers' })}>Servers</a> <span aria-hidden="true">›</span> New server
      </nav>
      <ViewTitle>Add a server</ViewTitle>
      <p className="muted">
        It is written to <code>servers.json</code> and waits for your approval before anything runs. A token
        or key typed as a value goes to your keychain, not into the file.
      </p>
      <div className="segmented" role="group" aria-label="How to add it">
        <button type="button" aria-pressed={mode === 'form'} onClick={() => setMode('form')}>
          Form
        </button>
        <button type="button" aria-pressed={mode === 'json'} onClick={() => setMode('json')}>
          Paste JSON
        </button>
        <button type="button" aria-pressed={mode === 'bundle'} onClick={() => setMode('bundle')}>
          MCP bundle
        </button>
      </div>
      {mode === 'form' ? <AddWithForm /> : mode === 'json' ? <AddPastedJson /> : <AddBundle />}
    </section>
  );
}

function AddWithForm() {
  const api = useApi();
  const [name, setName] = useState('');
  const [draft, setDraft] = useState<Draft>(emptyDraft);
  const add = useCommand(
    ({ name, config }: { name: string; config: unknown }) => api.addServer(name, config),
    [keys.status, keys.approvals, keys.secrets],
  );
  const serverIssues: FieldIssue[] = add.error instanceof UiApiError ? add.error.issues : [];
  return (
    <>
      <ServerForm
        mode="add"
        name={name}
        onName={setName}
        draft={draft}
        onDraft={setDraft}
        serverIssues={serverIssues}
        busy={add.isPending}
        submitLabel="Add server"
        onSubmit={(config) =>
          add.mutate(
            { name: name.trim(), config },
            {
              onSuccess: (added) => {
                leaveNote(addedNote(added.name), added);
                navigate({ view: 'server', name: added.name, tab: 'config' });
              },
            },
          )
        }
        footer={<a href={href({ view: 'servers' })}>Cancel</a>}
      />
      {add.error && serverIssues.length === 0 ? <ErrorText error={add.error} /> : null}
    </>
  );
}

const PLACEHOLDER = `{
  "mcpServers": {
    "github": {
      "command": "npx",
      "args": ["-y", "@modelcontextprotocol/server-github"],
      "env": { "GITHUB_PERSONAL_ACCESS_TOKEN": "…" }
    }
  }
}`;

/**
 * Raw JSON mode: what a server's README says to paste into an editor's config, pasted here. One or
 * several servers, checked as you type with the core's schema (and against the names already taken),
 * added all at once, each waiting for approval.
 */
function AddPastedJson() {
  const api = useApi();
  const status = useStatus();
  const [text, setText] = useState('');
  const [name, setName] = useState('');
  const [added, setAdded] = useState<AddedServer[] | undefined>();
  const existing = useMemo(() => new Set(status.data?.servers.map((s) => s.name) ?? []), [status.data]);
  const check = useMemo(() => checkSnippet(text, { name, existing }), [text, name, existing]);
  const lint = useCallback((t: string) => checkSnippet(t, { name, existing }).problems, [name, existing]);
  const add = useCommand(
    (servers: { name: string; config: unknown }[]) => api.addServers(servers),
    [keys.status, keys.approvals, keys.secrets],
  );
  // What the core refused after all (a name taken meanwhile): "github: …", by server.
  const serverIssues = add.error instanceof UiApiError ? add.error.issues : [];

  if (added) {
    const more = () => {
      setAdded(undefined);
      setText('');
      setName('');
    };
    return <Added servers={added} onMore={more} />;
  }

  const count = check.servers.length;
  const submit = () => {
    if (!check.ok || add.isPending) return;
    add.mutate(
      check.servers.map((s) => ({ name: s.name, config: s.config })),
      { onSuccess: (result) => setAdded(result) },
    );
  };
  return (
    <form
      className="json-form paste-form"
      aria-label="Servers as JSON"
      noValidate
      onSubmit={(e) => {
        e.preventDefault();
        submit();
      }}
    >
      <label htmlFor="paste-json" className="label">
        JSON from the server’s README
      </label>
      <p className="hint">
        One or several servers: <code>{'{"mcpServers": {"name": {…}}}'}</code>, the servers without it{' '}
        <code>{'{"name": {…}}'}</code>, or one server’s <code>{'{"command": …, "args": […]}'}</code>. Comments
        and trailing commas are fine.
      </p>
      <Suspense fallback={<textarea id="paste-json" className="mono" value={text} readOnly rows={10} />}>
        <JsonEditor
          id="paste-json"
          label="Servers as JSON"
          value={text}
          onChange={(next) => {
            setText(next);
            add.reset(); // an error was about what was there before
          }}
          lint={lint}
          placeholder={PLACEHOLDER}
        />
      </Suspense>
      {check.shape === 'entry' ? (
        <div className="field paste-name">
          <label htmlFor="paste-name">Name</label>
          <input
            id="paste-name"
            value={name}
            autoComplete="off"
            spellCheck={false}
            onChange={(e) => setName(e.target.value)}
            aria-invalid={name.trim() !== '' && check.nameProblem ? true : undefined}
            aria-describedby="paste-name-hint"
          />
          <p className="hint" id="paste-name-hint">
            {name.trim() !== '' && check.nameProblem ? (
              <span className="error">{check.nameProblem}</span>
            ) : (
              'This is one server’s entry: what should it be called? Letters, digits, “-” and “_”.'
            )}
          </p>
        </div>
      ) : null}
      <JsonProblems text={text} problems={check.problems} />
      {serverIssues.length ? (
        <div className="field-error" role="alert" data-testid="add-issues">
          {serverIssues.map((issue) => (
            <p key={`${issue.path.join('.')}-${issue.message}`}>
              {issue.path.length > 1 ? `${issue.path.join('.')}: ` : ''}
              {issue.message}
            </p>
          ))}
        </div>
      ) : null}
      {check.ok && !add.error ? (
        <p className="ok-text small" role="status">
          Ready to add {count === 1 ? '1 server' : `${count} servers`}:{' '}
          {check.servers.map((s) => s.name).join(', ')}. {count === 1 ? 'It waits' : 'Each waits'} for your
          approval before it runs.
        </p>
      ) : null}
      <div className="form-actions">
        <button type="submit" className="primary" disabled={!check.ok || add.isPending}>
          {add.isPending ? 'Adding…' : count > 1 ? `Add ${count} servers` : 'Add server'}
        </button>
        <a href={href({ view: 'servers' })}>Cancel</a>
      </div>
      {add.error && serverIssues.length === 0 ? <ErrorText error={add.error} /> : null}
    </form>
  );
}

/** After a paste: what was added, where each literal secret went, and where to approve them. */
function Added({ servers, onMore }: { servers: AddedServer[]; onMore: () => void }) {
  const names = servers.map((s) => s.name);
  return (
    <div className="banner ok added" role="status" data-testid="added">
      <p>
        <strong>
          Added {names.join(', ')} to <code>servers.json</code>.
        </strong>{' '}
        {servers.length === 1 ? 'It waits' : 'Each waits'} for your approval before it runs.
      </p>
      {servers.map((server) => (
        <MovedSecrets key={server.name} server={server} named={servers.length > 1} />
      ))}
      <div className="form-actions">
        <a
          className="button primary"
          href={href({ view: 'approvals', ...(servers.length === 1 ? { server: names[0] } : {}) })}
        >
          Review in Approvals
        </a>
        <a className="button" href={href({ view: 'servers' })}>
          Servers
        </a>
        <button type="button" onClick={onMore}>
          Paste more
        </button>
      </div>
    </div>
  );
}
