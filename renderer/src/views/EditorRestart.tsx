import { useState } from 'react';
import type { EditorRestartResult, EditorView } from '../../../shared/ui-api.ts';
import { useApi } from '../api/context.tsx';
import { useCommand } from '../api/hooks.ts';
import { keys } from '../api/keys.ts';
import { ErrorText } from '../components/Feedback.tsx';

/**
 * Claude Desktop reads its settings only when it starts: while it runs since before Switchboard last
 * wrote its file, say so, and offer to restart it where Switchboard can. The hint goes by itself when
 * the app is restarted or quit (the core re-checks and sends an `editors` event).
 */
export function EditorRestart({ editor }: { editor: EditorView }) {
  const api = useApi();
  const [result, setResult] = useState<EditorRestartResult | undefined>();
  const restart = useCommand(() => api.restartEditor(editor.id), [keys.editors]);
  return (
    <>
      {editor.restartRequired ? (
        <div className="banner warn restart-hint" role="status" data-testid={`restart-${editor.id}`}>
          <span>
            {editor.label} is still running with its previous settings: it reads them only when it starts.
            {editor.canRestart ? '' : ' Quit and reopen it to pick up the change.'}
          </span>{' '}
          {editor.canRestart ? (
            <button
              type="button"
              className="small"
              disabled={restart.isPending}
              onClick={() => {
                setResult(undefined);
                restart.mutate(undefined, { onSuccess: setResult });
              }}
            >
              {restart.isPending ? 'Restarting…' : `Restart ${editor.label}`}
            </button>
          ) : null}
        </div>
      ) : null}
      {result && !editor.restartRequired ? (
        <p className="muted small" role="status">
          {result.message}
        </p>
      ) : null}
      {restart.error ? <ErrorText error={restart.error} /> : null}
    </>
  );
}
