import { displayText } from '../../../shared/display-text.ts';
import { useId, useState, type FormEvent, type ReactNode } from 'react';
import { SECRET_NAME_PATTERN } from '../../../shared/secrets.ts';
import type { SecretInfo } from '../../../shared/ui-api.ts';
import { useApi } from '../api/context.tsx';
import { useCommand, useSecrets } from '../api/hooks.ts';
import { keys } from '../api/keys.ts';
import { ConfirmButton } from '../components/ConfirmButton.tsx';
import { EmptyState, ErrorText, Loading } from '../components/Feedback.tsx';
import { ViewTitle } from '../components/ViewTitle.tsx';
import { argumentNumber } from '../lib/format.ts';
import { href } from '../router.ts';

export default function SecretsView() {
  const secrets = useSecrets();
  const [replacing, setReplacing] = useState<SecretInfo | undefined>();
  const [notice, setNotice] = useState<string | undefined>();
  const list = secrets.data?.secrets ?? [];
  return (
    <section>
      <ViewTitle>Secrets</ViewTitle>
      <p className="muted">
        Kept in your OS keychain. Servers use them as <code>{'${secret:NAME}'}</code>; the values are resolved
        only when a server starts, never shown here, and redacted from logs.
      </p>
      {secrets.isPending ? <Loading what="secrets" /> : null}
      {secrets.error ? <ErrorText error={secrets.error} /> : null}
      {secrets.data?.keychainError ? (
        <div className="banner error" role="alert">
          <strong>The keychain cannot be read.</strong> {secrets.data.keychainError}
        </div>
      ) : null}
      <SecretForm
        key={replacing?.name ?? 'new'}
        replacing={replacing}
        onStored={(message) => {
          setNotice(message);
          setReplacing(undefined);
        }}
        onCancel={() => setReplacing(undefined)}
      />
      {notice ? (
        <p className="banner ok" role="status">
          {notice}
        </p>
      ) : null}
      {secrets.data && list.length === 0 ? (
        <EmptyState title="No secrets yet">
          <p>
            Store an API key above, then use it in a server’s environment as <code>{'${secret:NAME}'}</code>.
            A literal token already in <code>servers.json</code> gets a “Store in keychain” button on its
            server’s page.
          </p>
        </EmptyState>
      ) : null}
      {list.length > 0 ? (
        <table className="secrets" data-testid="secrets-table">
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Used by</th>
              <th scope="col">In keychain</th>
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {list.map((secret) => (
              <SecretRow key={secret.name} secret={secret} onReplace={() => setReplacing(secret)} />
            ))}
          </tbody>
        </table>
      ) : null}
    </section>
  );
}

function SecretRow({ secret, onReplace }: { secret: SecretInfo; onReplace: () => void }) {
  const api = useApi();
  const remove = useCommand(() => api.deleteSecret(secret.name), [keys.secrets]);
  return (
    <tr data-secret={secret.name}>
      <th scope="row" className="mono">
        {secret.name}
      </th>
      <td>
        {secret.usedBy.length === 0 ? (
          <span className="muted">no server</span>
        ) : (
          <ul className="plain">
            {secret.usedBy.map((u) => (
              <li key={`${u.server}:${u.field}:${u.key}`}>
                <a href={href({ view: 'server', name: u.server, tab: 'config' })}>{u.server}</a>{' '}
                <span className="muted">{whereUsed(u)}</span>
              </li>
            ))}
          </ul>
        )}
      </td>
      <td>
        {secret.stored ? (
          <span className="tone-ok">✓ stored</span>
        ) : (
          <span className="tone-danger">
            <span aria-hidden="true">! </span>missing — add it to start{' '}
            {secret.usedBy.length > 1 ? 'these servers' : 'the server'}
          </span>
        )}
      </td>
      <td className="row-actions">
        <button
          type="button"
          className="small"
          onClick={onReplace}
          aria-label={`${secret.stored ? 'Replace' : 'Add'} ${secret.name}`}
        >
          {secret.stored ? 'Replace' : 'Add value'}
        </button>
        {secret.stored ? (
          <ConfirmButton
            label="Delete"
            confirmLabel={`Delete ${secret.name}`}
            onConfirm={() => remove.mutate(undefined)}
          />
        ) : null}
        {remove.error ? <ErrorText error={remove.error} /> : null}
      </td>
    </tr>
  );
}

/** Add a secret, or replace one: the value goes to the keychain and is never read back. */
function SecretForm({
  replacing,
  onStored,
  onCancel,
}: {
  replacing: SecretInfo | undefined;
  onStored: (message: string) => void;
  onCancel: () => void;
}) {
  const api = useApi();
  const id = useId();
  const [name, setName] = useState(replacing?.name ?? '');
  const [value, setValue] = useState('');
  const [tried, setTried] = useState(false);
  const set = useCommand(
    ({ name, value }: { name: string; value: string }) => api.setSecret(name, value),
    [keys.secrets, keys.status],
  );
  const nameProblem =
    name === ''
      ? 'give the secret a name'
      : SECRET_NAME_PATTERN.test(name)
        ? undefined
        : 'use 1 to 64 letters, digits, “.”, “-” or “_”';
  const valueProblem = value === '' ? 'type or paste the value' : undefined;
  const title = !replacing
    ? 'Add a secret'
    : replacing.stored
      ? `Replace “${replacing.name}”`
      : `Store “${replacing.name}”`;
  const submit = (e: FormEvent) => {
    e.preventDefault();
    setTried(true);
    if (nameProblem || valueProblem) return;
    set.mutate(
      { name, value },
      {
        onSuccess: (r) => {
          setValue('');
          setTried(false);
          setName('');
          onStored(
            `Stored “${name}” in the keychain.` +
              (r.restarted.length ? ` Restarted ${r.restarted.join(', ')} to use it.` : ''),
          );
        },
      },
    );
  };
  return (
    <form className="card secret-form" onSubmit={submit} noValidate aria-label={title}>
      <h2>{title}</h2>
      <div className="row">
        <div className="field">
          <label htmlFor={`${id}-name`}>Name</label>
          <input
            id={`${id}-name`}
            className="mono"
            value={name}
            readOnly={replacing !== undefined}
            autoComplete="off"
            spellCheck={false}
            placeholder="github-token"
            aria-invalid={(tried && nameProblem !== undefined) || undefined}
            aria-describedby={tried && nameProblem ? `${id}-name-err` : undefined}
            onChange={(e) => setName(e.target.value)}
          />
          {tried && nameProblem ? (
            <p className="field-error" id={`${id}-name-err`} role="alert">
              {nameProblem}
            </p>
          ) : null}
        </div>
        <div className="field grow">
          <label htmlFor={`${id}-value`}>Value</label>
          <input
            id={`${id}-value`}
            type="password"
            className="mono"
            value={value}
            autoComplete="new-password"
            spellCheck={false}
            aria-invalid={(tried && valueProblem !== undefined) || undefined}
            aria-describedby={tried && valueProblem ? `${id}-value-err` : `${id}-value-hint`}
            onChange={(e) => setValue(e.target.value)}
          />
          {tried && valueProblem ? (
            <p className="field-error" id={`${id}-value-err`} role="alert">
              {valueProblem}
            </p>
          ) : (
            <p className="hint" id={`${id}-value-hint`}>
              Write-only: it cannot be shown again.
            </p>
          )}
        </div>
      </div>
      <div className="form-actions">
        <button type="submit" className="primary" disabled={set.isPending}>
          {set.isPending ? 'Storing…' : replacing?.stored ? 'Replace value' : 'Store in keychain'}
        </button>
        {replacing ? (
          <button type="button" onClick={onCancel}>
            Cancel
          </button>
        ) : null}
      </div>
      {set.error ? <ErrorText error={set.error} /> : null}
    </form>
  );
}

/** Where in a server's entry a secret is used: "env GITHUB_TOKEN", "header Authorization", "argument 3", "URL". */
function whereUsed(use: SecretInfo['usedBy'][number]): ReactNode {
  switch (use.field) {
    case 'env':
      return (
        <>
          env <code>{displayText(use.key)}</code>
        </>
      );
    case 'headers':
      return (
        <>
          header <code>{displayText(use.key)}</code>
        </>
      );
    case 'args': {
      const n = argumentNumber(use.key);
      return n === undefined ? <code>{displayText(use.key)}</code> : `argument ${n}`;
    }
    case 'url':
      return 'URL';
  }
}
