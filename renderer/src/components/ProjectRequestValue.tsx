import { useId, useState, type FormEvent } from 'react';
import { useApi } from '../api/context.tsx';
import { useCommand } from '../api/hooks.ts';
import { keys } from '../api/keys.ts';
import { ErrorText } from './Feedback.tsx';

/**
 * A value of its own for one request of a project server's file (`${GITHUB_TOKEN}`), as
 * `switchboard projects give` takes it: kept in the keychain as that server's own secret and never
 * shown again (the field empties once it is kept). The server then waits for approval, whose card
 * shows the secret passed on.
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
  return (
    <form className="row" onSubmit={submit} noValidate aria-label={`Value for ${request}`}>
      <div className="field">
        <label htmlFor={id}>
          Value for <code>{request}</code> (its own, kept in the keychain)
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
