import { useEffect, useId, useRef, useState } from 'react';
import type { EditorUnsyncResult, EditorView } from '../../../shared/ui-api.ts';
import { useApi } from '../api/context.tsx';
import { useCommand } from '../api/hooks.ts';
import { keys } from '../api/keys.ts';
import { ErrorText } from '../components/Feedback.tsx';

/** "a", "a and b", "a, b and c" */
function list(items: readonly string[]): string {
  return items.length < 2 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} and ${items.at(-1) ?? ''}`;
}

function entries(n: number): string {
  return n === 1 ? 'entry' : 'entries';
}

/**
 * Unsync for one editor: says exactly what will happen before anything is removed — which of
 * Switchboard's entries go, which of the person's own entries (those import replaced) come back, and
 * that the secrets import moved into the keychain come back only if they tick the box.
 */
export function EditorUnsync({ editor }: { editor: EditorView }) {
  const api = useApi();
  const [open, setOpen] = useState(false);
  const [restoreSecrets, setRestoreSecrets] = useState(false);
  const [result, setResult] = useState<EditorUnsyncResult | undefined>();
  const unsync = useCommand((restore: boolean) => api.unsyncEditor(editor.id, restore), [keys.editors]);
  const cancelRef = useRef<HTMLButtonElement>(null);
  const titleId = useId();
  useEffect(() => {
    if (open) cancelRef.current?.focus();
  }, [open]);

  const plan = editor.unsync;
  const secrets = plan
    ? [...new Set([...plan.restores.flatMap((r) => r.secrets), ...plan.heldBack])].sort()
    : [];
  const onlySecrets = plan !== null && !plan.removes.length && !plan.restores.length;
  const anything =
    plan !== null && (plan.removes.length > 0 || plan.restores.length > 0 || secrets.length > 0);

  return (
    <>
      {result ? <UnsyncDone label={editor.label} result={result} /> : null}
      {unsync.error ? <ErrorText error={unsync.error} /> : null}
      {!open && anything ? (
        <button
          type="button"
          className="danger"
          onClick={() => {
            setResult(undefined);
            setRestoreSecrets(onlySecrets);
            setOpen(true);
          }}
        >
          {onlySecrets ? 'Put secrets back…' : `Unsync ${editor.label}…`}
        </button>
      ) : null}
      {open && plan ? (
        <div
          className="unsync-panel"
          role="group"
          aria-labelledby={titleId}
          onKeyDown={(e) => e.key === 'Escape' && setOpen(false)}
        >
          <p id={titleId}>
            <strong>
              {onlySecrets ? `Put secrets back into ${editor.label}’s file` : `Unsync ${editor.label}`}
            </strong>
          </p>
          <ul className="plain unsync-steps">
            {plan.removes.length ? (
              <li>
                Switchboard takes its {entries(plan.removes.length)} out of{' '}
                <span className="mono small">{editor.file}</span>: {list(plan.removes)}.
              </li>
            ) : null}
            {plan.restores.length ? (
              <li>
                Your own {entries(plan.restores.length)} that import replaced{' '}
                {plan.restores.length === 1 ? 'comes back as it was' : 'come back as they were'}:{' '}
                {list(plan.restores.map((r) => r.entry))}.
              </li>
            ) : null}
            {onlySecrets ? (
              <li>
                Your entries hold placeholders where these secrets were: {list(secrets)}. Their values are in
                the keychain.
              </li>
            ) : (
              <li>
                Sync turns off for {editor.label} until you sync it again; servers.json and the keychain stay
                as they are.
              </li>
            )}
          </ul>
          {secrets.length ? (
            <>
              <label className="check">
                <input
                  type="checkbox"
                  checked={restoreSecrets}
                  onChange={(e) => setRestoreSecrets(e.target.checked)}
                />
                Put back the secrets import moved into the keychain ({list(secrets)}), as plain text in this
                file
              </label>
              <p className="hint">
                {restoreSecrets
                  ? 'Anyone who can read the file can then read them. They stay in the keychain too.'
                  : 'Left out, each secret’s place in the file says where it is and how to put it back.'}
              </p>
            </>
          ) : null}
          <div className="form-actions">
            <button
              type="button"
              className="danger solid"
              disabled={unsync.isPending}
              onClick={() =>
                unsync.mutate(restoreSecrets, {
                  onSuccess: (r) => {
                    setResult(r);
                    setOpen(false);
                  },
                })
              }
            >
              {unsync.isPending ? 'Working…' : onlySecrets ? 'Put secrets back' : `Unsync ${editor.label}`}
            </button>
            <button type="button" ref={cancelRef} onClick={() => setOpen(false)}>
              Cancel
            </button>
          </div>
        </div>
      ) : null}
    </>
  );
}

function UnsyncDone({ label, result }: { label: string; result: EditorUnsyncResult }) {
  const said: string[] = [];
  if (result.removed.length)
    said.push(`Switchboard’s ${entries(result.removed.length)} removed: ${list(result.removed)}.`);
  if (result.restored.length)
    said.push(
      `Your ${entries(result.restored.length)} ${list(result.restored)} ${result.restored.length === 1 ? 'is' : 'are'} back.`,
    );
  if (result.secretsPutBack.length)
    said.push(`Secrets put back into the file: ${list(result.secretsPutBack)}.`);
  if (result.secretsHeldBack.length)
    said.push(
      `Secrets held back (still in the keychain; their places in the file say so): ${list(result.secretsHeldBack)}.`,
    );
  if (!said.length)
    said.push(result.written ? `${label}’s file is updated.` : `Nothing needed changing in ${label}’s file.`);
  return (
    <div className={`banner ${result.problem ? 'warn' : 'ok'}`} role="status">
      <span>{said.join(' ')}</span>
      {result.problem ? <span>{result.problem}</span> : null}
    </div>
  );
}
