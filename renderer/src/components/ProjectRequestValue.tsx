import { useId, useState, type FormEvent } from 'react';
import { displayText } from '../../../shared/display-text.ts';
import { useApi } from '../api/context.tsx';
import { useCommand } from '../api/hooks.ts';
import { keys } from '../api/keys.ts';
import { ErrorText } from './Feedback.tsx';

/**
 * A value of its own for one request of a project server's file (`${GITHUB_TOKEN}`), as
 * `switchboard projects give` takes it: kept in the keychain as that server's own secret and never
 * shown again (the field empties once it is kept). Shown where the server waits for it: its approval
 * card and its row in Projects. The request is the repository's text: its hidden characters are
 * written out. The server's config names that secret already, so giving it changes no approval: an
 * approved server waiting for it starts.
 */
export function ProjectRequestValue({ server, request }: { server: string; request: string }) {
  const api = useApi();
  const id = useId();
  const [value, setValue] = useState('');
  const give = useCommand(
    (v: string) => api.giveProjectRequest(server, request, v),
    [keys.projects, keys.status, keys.approvals],
  );
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (value === '') return;
    give.mutate(value, { onSuccess: () => setValue('') });
  };
  const shown = displayText(request);
  return (
    <form className="row bottom" onSubmit={submit} noValidate aria-label={`Value for ${shown}`}>
      <div className="field">
        <label htmlFor={id}>
          Value for <code>{shown}</code> (its own, kept in the keychain)
        </label>
        <input
          id={id}
          type="password"
          className="mono"
          value={value}
          autoComplete="off"
          spellCheck={false}
          onChange={(e) => setValue(e.target.value)}
        />
      </div>
      <button type="submit" className="small" disabled={value === '' || give.isPending}>
        Keep it
      </button>
      {give.error ? <ErrorText error={give.error} /> : null}
    </form>
  );
}
