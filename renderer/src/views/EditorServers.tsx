import type { EditorView, EditorsSyncResult } from '../../../shared/ui-api.ts';
import { useApi } from '../api/context.tsx';
import { useCommand } from '../api/hooks.ts';
import { keys } from '../api/keys.ts';
import { ErrorText } from '../components/Feedback.tsx';

/**
 * The servers an editor gets, each with a control to keep it out of this editor, and the ones kept
 * out with a control to give them back: the same setting as `switchboard sync --editor E --exclude`.
 * An excluded server's entry leaves the editor's file and the editor's token no longer reaches it.
 */
export function EditorServers({
  editor,
  onSynced,
}: {
  editor: EditorView;
  onSynced: (result: EditorsSyncResult) => void;
}) {
  const api = useApi();
  const change = useCommand(
    ({ server, excluded }: { server: string; excluded: boolean }) =>
      api.setEditorExcluded(editor.id, server, excluded),
    [keys.editors],
  );
  const set = (server: string, excluded: boolean) =>
    change.mutate({ server, excluded }, { onSuccess: onSynced });
  const listId = `editor-${editor.id}-servers`;
  const excludedId = `editor-${editor.id}-excluded`;
  return (
    <>
      <div className="editor-servers">
        <span className="label" id={listId}>
          Servers
        </span>
        {editor.servers.length ? (
          <ul className="chips" aria-labelledby={listId}>
            {editor.servers.map((s) => (
              <ServerChip
                key={s}
                name={s}
                action={`Exclude ${s} from ${editor.label}`}
                symbol="×"
                busy={change.isPending}
                onClick={() => set(s, true)}
              />
            ))}
          </ul>
        ) : (
          <span className="muted">
            {editor.excluded.length ? 'none: every server is excluded' : 'none yet (approve a server first)'}
          </span>
        )}
      </div>
      {editor.excluded.length ? (
        <div className="editor-servers excluded">
          <span className="label" id={excludedId}>
            Excluded
          </span>
          <ul className="chips" aria-labelledby={excludedId}>
            {editor.excluded.map((s) => (
              <ServerChip
                key={s}
                name={s}
                excluded
                action={`Include ${s} in ${editor.label} again`}
                symbol="+"
                busy={change.isPending}
                onClick={() => set(s, false)}
              />
            ))}
          </ul>
        </div>
      ) : null}
      {change.error ? <ErrorText error={change.error} /> : null}
    </>
  );
}

/** A server's name with the one thing to do about it (its label said to screen readers and on hover). */
function ServerChip(props: {
  name: string;
  action: string;
  symbol: string;
  busy: boolean;
  excluded?: boolean;
  onClick: () => void;
}) {
  return (
    <li className={props.excluded ? 'chip mono excluded' : 'chip mono'}>
      <span>{props.name}</span>
      <button
        type="button"
        className="chip-action"
        aria-label={props.action}
        title={props.action}
        disabled={props.busy}
        onClick={props.onClick}
      >
        {props.symbol}
      </button>
    </li>
  );
}
