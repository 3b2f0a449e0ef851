import { useState } from 'react';
import { displayLines } from '../../../shared/display-text.ts';
import { EDITOR_IDS, EDITOR_LABELS, type EditorId } from '../../../shared/editors.ts';
import type { EditorSyncState, EditorView, EditorsSyncResult } from '../../../shared/ui-api.ts';
import { useApi } from '../api/context.tsx';
import { useCommand, useEditors } from '../api/hooks.ts';
import { keys } from '../api/keys.ts';
import { ConfirmButton } from '../components/ConfirmButton.tsx';
import { EmptyState, ErrorText, Loading } from '../components/Feedback.tsx';
import { ViewTitle } from '../components/ViewTitle.tsx';
import { formatDateTime } from '../lib/format.ts';
import { EditorRestart } from './EditorRestart.tsx';
import { EditorServers } from './EditorServers.tsx';
import { EditorTools } from './EditorTools.tsx';
import { EditorUnsync } from './EditorUnsync.tsx';

const STATES: Record<EditorSyncState, { label: string; symbol: string; tone: string }> = {
  'in-sync': { label: 'in sync', symbol: '✓', tone: 'ok' },
  drift: { label: 'drift: needs sync', symbol: '≠', tone: 'warn' },
  'not-synced': { label: 'not synced yet', symbol: '○', tone: 'info' },
  error: { label: 'error', symbol: '!', tone: 'danger' },
  'not-installed': { label: 'not installed', symbol: '–', tone: 'muted' },
  disabled: { label: 'sync off', symbol: '⊘', tone: 'muted' },
};

export default function EditorsView() {
  const api = useApi();
  const editors = useEditors();
  const syncAll = useCommand(() => api.syncEditors(), [keys.editors, keys.tokens]);
  const [result, setResult] = useState<EditorsSyncResult | undefined>();
  const list = editors.data?.editors ?? [];
  const installed = list.filter((e) => e.state !== 'not-installed');
  const others = list.filter((e) => e.state === 'not-installed');
  return (
    <section>
      <ViewTitle
        actions={
          editors.data?.available ? (
            <button
              type="button"
              className="primary"
              disabled={syncAll.isPending}
              onClick={() => syncAll.mutate(undefined, { onSuccess: setResult })}
            >
              {syncAll.isPending ? 'Syncing…' : 'Sync all now'}
            </button>
          ) : null
        }
      >
        Editors
      </ViewTitle>
      <p className="muted">
        Switchboard writes one entry per approved server into each editor’s config file, pointing at the
        bridge (or, in discovery mode, one entry for all of them). Each editor shows how many tools it gets,
        what they cost it, and its known limit; choose its tools there. Your own entries there are never
        changed, except those you import, which unsync gives back as they were.
      </p>
      {editors.isPending ? <Loading what="editors" /> : null}
      {editors.error ? <ErrorText error={editors.error} /> : null}
      {syncAll.error ? <ErrorText error={syncAll.error} /> : null}
      {result ? <SyncResult result={result} /> : null}
      {editors.data && !editors.data.available ? (
        <EmptyState title="Editor sync is not available in this build">
          <p>
            Run <code>npx switchboard sync</code> from a terminal to write your editors’ config files.
          </p>
        </EmptyState>
      ) : null}
      {editors.data?.available && installed.length === 0 ? (
        <EmptyState title="No supported editor found on this computer">
          <p>
            Switchboard looks for {EDITOR_IDS.map((id) => EDITOR_LABELS[id]).join(', ')} in their usual
            folders. Install one, then come back: it shows up here.
          </p>
        </EmptyState>
      ) : null}
      {installed.map((editor) => (
        <EditorCard key={editor.id} editor={editor} onSynced={setResult} />
      ))}
      {others.length > 0 ? (
        <details className="not-installed">
          <summary>Not installed ({others.length})</summary>
          <ul className="plain">
            {others.map((e) => (
              <li key={e.id}>
                {e.label} <span className="muted small mono">{e.file}</span>
              </li>
            ))}
          </ul>
        </details>
      ) : null}
    </section>
  );
}

/** The unified diff without its "Index:" / "====" preamble and trailing newline. */
/** The diff's lines, display-safe: an editor file's own text may carry bidi or control characters. */
function diffBody(diff: string): string[] {
  return displayLines(diff.replace(/\r?\n$/, '')).filter(
    (line) => !line.startsWith('Index: ') && !/^=+$/.test(line),
  );
}

function SyncResult({ result }: { result: EditorsSyncResult }) {
  return (
    <div className={`banner ${result.problems.length ? 'error' : 'ok'}`} role="status">
      {result.changed.length ? `Updated ${result.changed.join(', ')}.` : 'Every editor was already in sync.'}
      {result.problems.map((p) => (
        <p key={p.editor}>
          <strong>{p.editor}:</strong> {p.message}
        </p>
      ))}
      {result.notices.map((n) => (
        <p key={`notice-${n.editor}`}>
          <strong>{n.editor}:</strong> {n.message}
        </p>
      ))}
    </div>
  );
}

function EditorCard({ editor, onSynced }: { editor: EditorView; onSynced: (r: EditorsSyncResult) => void }) {
  const api = useApi();
  const sync = useCommand((id: EditorId) => api.syncEditors(id), [keys.editors, keys.tokens]);
  const restore = useCommand(
    ({ id, backup }: { id: EditorId; backup: string }) => api.restoreEditorBackup(id, backup),
    [keys.editors],
  );
  const look = STATES[editor.state];
  const titleId = `editor-${editor.id}`;
  return (
    <article className="card editor" aria-labelledby={titleId} data-editor={editor.id}>
      <header>
        <h2 id={titleId}>{editor.label}</h2>
        <span className={`state tone-${look.tone}`} data-state={editor.state}>
          <span className="state-symbol" aria-hidden="true">
            {look.symbol}
          </span>
          {look.label}
        </span>
      </header>
      <p className="mono small muted">{editor.file}</p>
      <p className="small muted" data-token={editor.tokenInFile ? 'in-file' : 'not-in-file'}>
        {editor.tokenInFile
          ? 'Its bridge token is written in this file.'
          : `No token in this file: ${editor.label} reads it from Switchboard when it connects.`}
      </p>
      {editor.problem ? <p className="error">{editor.problem}</p> : null}
      {editor.madePrivate ? (
        <p className="muted small" role="note">
          This file is now readable only by you (0600): it holds {editor.label}’s Switchboard token, which
          other users of this computer could otherwise read and use.
        </p>
      ) : null}
      {editor.notice && editor.state !== 'not-installed' ? (
        <p className="muted small" role="note" data-testid="editor-notice">
          {editor.notice}
        </p>
      ) : null}
      <EditorRestart editor={editor} />
      <EditorServers editor={editor} onSynced={onSynced} />
      {editor.state !== 'not-installed' ? <EditorTools editor={editor.id} label={editor.label} /> : null}
      {editor.diff ? (
        <details open>
          <summary>What a sync would change</summary>
          <pre className="diff unified" data-testid={`diff-${editor.id}`}>
            {diffBody(editor.diff).map((line, i) => (
              <span
                key={i}
                className={
                  line.startsWith('+') && !line.startsWith('+++')
                    ? 'diff-added'
                    : line.startsWith('-') && !line.startsWith('---')
                      ? 'diff-removed'
                      : 'diff-same'
                }
              >
                {line}
                {'\n'}
              </span>
            ))}
          </pre>
        </details>
      ) : null}
      <div className="form-actions">
        <button
          type="button"
          className={editor.diff ? 'primary' : ''}
          disabled={sync.isPending}
          onClick={() => sync.mutate(editor.id, { onSuccess: onSynced })}
        >
          {sync.isPending ? 'Syncing…' : `Sync ${editor.label} now`}
        </button>
        <EditorUnsync editor={editor} />
      </div>
      {sync.error ? <ErrorText error={sync.error} /> : null}
      {editor.backups.length ? (
        <details>
          <summary>Backups ({editor.backups.length})</summary>
          <ul className="plain backups">
            {editor.backups.map((b) => (
              <li key={b.id}>
                {formatDateTime(b.createdAt)} <span className="muted small mono">{b.file}</span>{' '}
                <ConfirmButton
                  className="small"
                  label="Restore"
                  confirmLabel={`Restore ${editor.label}’s file from this backup`}
                  onConfirm={() => restore.mutate({ id: editor.id, backup: b.id })}
                />
              </li>
            ))}
          </ul>
          {restore.error ? <ErrorText error={restore.error} /> : null}
        </details>
      ) : null}
    </article>
  );
}
