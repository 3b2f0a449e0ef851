import { keepPreviousData, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useId, useState, type FormEvent } from 'react';
import type { CatalogDetail, CatalogField, CatalogOption, CatalogPlan } from '../../../shared/catalog.ts';
import { displayText } from '../../../shared/display-text.ts';
import { UiApiError } from '../../../shared/ui-api.ts';
import { useApi } from '../api/context.tsx';
import { useCommand } from '../api/hooks.ts';
import { keys } from '../api/keys.ts';
import { navigate } from '../router.ts';
import { ErrorText } from './Feedback.tsx';

/**
 * Installs one way of running a registry server: its name in servers.json and the values it needs
 * (secrets typed here go to the keychain; the entry gets `${secret:…}`), with the exact command the
 * approval will show, as the core makes it (a dry run as you type). Install adds it pending approval
 * and opens its approval card.
 */
export function CatalogInstall({ detail, option }: { detail: CatalogDetail; option: CatalogOption }) {
  const api = useApi();
  const client = useQueryClient();
  const id = useId();
  const [name, setName] = useState(detail.suggestedName);
  const [values, setValues] = useState<Record<string, string>>(() =>
    Object.fromEntries(
      option.fields.filter((f) => !f.secret && f.default !== null).map((f) => [f.id, f.default ?? '']),
    ),
  );
  const [secrets, setSecrets] = useState<Record<string, string>>({});
  const [attempted, setAttempted] = useState(false);
  const request = {
    server: detail.entry.name,
    version: detail.entry.version,
    option: option.id,
    name: name.trim(),
    values,
  };
  // Only whether a secret was typed goes into the preview, never what.
  const given = Object.fromEntries(Object.entries(secrets).map(([k, v]) => [k, v ? '•' : '']));
  const draft = useDebounced(JSON.stringify({ ...request, secrets: given }), 200);
  const preview = useQuery({
    queryKey: [...keys.catalog, 'plan', draft],
    queryFn: () => api.catalog.install({ ...(JSON.parse(draft) as typeof request), dryRun: true }),
    placeholderData: keepPreviousData,
    enabled: option.problem === null,
    staleTime: 0,
  });
  const plan = preview.data?.plan;
  const install = useCommand(
    () => api.catalog.install({ ...request, secrets }),
    [keys.status, keys.approvals, keys.secrets],
  );
  const serverIssues = install.error instanceof UiApiError ? install.error.issues : [];
  const issueAt = (field: string): string | undefined =>
    serverIssues.find((i) => i.path[0] === field)?.message ??
    (attempted ? plan?.issues.find((i) => i.field === field)?.message : undefined);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setAttempted(true);
    const check = await api.catalog
      .install({ ...request, secrets: given, dryRun: true })
      .catch(() => undefined);
    if (check && (check.plan.issues.length || check.plan.problems.length)) {
      void client.invalidateQueries({ queryKey: [...keys.catalog, 'plan'] });
      return;
    }
    install.mutate(undefined, {
      onSuccess: (result) => {
        setSecrets({});
        navigate({ view: 'approvals', server: result.plan.name });
      },
    });
  };

  if (option.problem) {
    return (
      <div className="card" data-testid="catalog-install">
        <p className="tone-danger">
          <strong>This way of running it cannot be installed here.</strong> {option.problem}
        </p>
      </div>
    );
  }
  return (
    <form
      className="card catalog-install"
      onSubmit={(e) => void submit(e)}
      noValidate
      data-testid="catalog-install"
    >
      <h2>What it needs</h2>
      <TextField
        id={`${id}-name`}
        label="Name in Switchboard"
        hint="How your editors and servers.json will call it: letters, digits, “-” and “_”."
        value={name}
        onChange={setName}
        issue={issueAt('name')}
        mono
      />
      {option.fields.length === 0 ? <p className="muted">Nothing else: it runs as published.</p> : null}
      {option.fields.map((field) =>
        field.secret ? (
          <SecretField
            key={field.id}
            id={`${id}-${field.id}`}
            field={field}
            value={secrets[field.id] ?? ''}
            onChange={(v) => setSecrets((s) => ({ ...s, [field.id]: v }))}
            plan={plan}
            issue={issueAt(field.id)}
          />
        ) : (
          <ValueField
            key={field.id}
            id={`${id}-${field.id}`}
            field={field}
            value={values[field.id] ?? ''}
            onChange={(v) => setValues((s) => ({ ...s, [field.id]: v }))}
            issue={issueAt(field.id)}
          />
        ),
      )}
      <h3 className="label">{option.kind === 'remote' ? 'It will connect to' : 'It will run exactly'}</h3>
      <pre className="command" data-testid="catalog-command" aria-live="polite">
        {plan?.lines.length
          ? plan.lines.join('\n')
          : preview.isFetching
            ? '…'
            : '(fill in what it needs to see the command)'}
      </pre>
      {plan?.references.length ? (
        <ul className="references">
          {plan.references.map((line) => (
            <li key={line}>{line}</li>
          ))}
        </ul>
      ) : null}
      {plan?.problems.map((problem) => (
        <p key={problem} className="field-error" role="alert">
          {problem}
        </p>
      ))}
      <p className="muted small">
        Install adds it to servers.json and stores the secrets you typed in your keychain. Nothing runs until
        you approve it on the next page.
      </p>
      <div className="form-actions">
        <button type="submit" className="primary" disabled={install.isPending || !name.trim()}>
          {install.isPending ? 'Installing…' : `Install ${name.trim() || 'server'}`}
        </button>
      </div>
      {install.error && serverIssues.length === 0 ? <ErrorText error={install.error} /> : null}
    </form>
  );
}

function TextField(props: {
  id: string;
  label: string;
  hint?: string | null;
  value: string;
  onChange: (v: string) => void;
  issue: string | undefined;
  mono?: boolean;
  placeholder?: string | null;
}) {
  return (
    <div className="field">
      <label htmlFor={props.id}>{props.label}</label>
      <input
        id={props.id}
        className={props.mono ? 'mono' : undefined}
        value={props.value}
        placeholder={props.placeholder ?? undefined}
        onChange={(e) => props.onChange(e.target.value)}
        aria-invalid={props.issue ? true : undefined}
        aria-describedby={`${props.id}-hint`}
        autoComplete="off"
        spellCheck={false}
      />
      <Hint id={`${props.id}-hint`} hint={props.hint ?? null} issue={props.issue} />
    </div>
  );
}

function ValueField({
  id,
  field,
  value,
  onChange,
  issue,
}: {
  id: string;
  field: CatalogField;
  value: string;
  onChange: (v: string) => void;
  issue: string | undefined;
}) {
  const choices = field.choices ?? (field.format === 'boolean' ? ['true', 'false'] : null);
  const label = <FieldLabel id={id} field={field} />;
  if (choices) {
    return (
      <div className="field">
        {label}
        <select
          id={id}
          value={value}
          onChange={(e) => onChange(e.target.value)}
          aria-invalid={issue ? true : undefined}
          aria-describedby={`${id}-hint`}
        >
          {field.required && value !== '' ? null : (
            <option value="">{field.required ? 'Choose…' : '(leave out)'}</option>
          )}
          {choices.map((c) => (
            <option key={c} value={c}>
              {displayText(c)}
            </option>
          ))}
        </select>
        <Hint id={`${id}-hint`} hint={field.description} issue={issue} />
      </div>
    );
  }
  return (
    <div className="field">
      {label}
      <input
        id={id}
        className="mono"
        inputMode={field.format === 'number' ? 'decimal' : undefined}
        value={value}
        placeholder={
          field.placeholder ?? (field.format === 'filepath' ? 'a path on this computer' : undefined)
        }
        onChange={(e) => onChange(e.target.value)}
        aria-invalid={issue ? true : undefined}
        aria-describedby={`${id}-hint`}
        autoComplete="off"
        spellCheck={false}
      />
      <Hint id={`${id}-hint`} hint={field.description} issue={issue} />
    </div>
  );
}

function SecretField({
  id,
  field,
  value,
  onChange,
  plan,
  issue,
}: {
  id: string;
  field: CatalogField;
  value: string;
  onChange: (v: string) => void;
  plan: CatalogPlan | undefined;
  issue: string | undefined;
}) {
  const secret = plan?.secrets.find((s) => s.field === field.id);
  const where = secret
    ? secret.stored && !value
      ? `A secret named “${secret.name}” is in your keychain already: leave this empty to use it, or type a new value to replace it.`
      : `Stored in your keychain as \${secret:${secret.name}}; servers.json gets only that reference.`
    : 'Stored in your keychain; servers.json gets only a reference to it.';
  return (
    <div className="field">
      <FieldLabel id={id} field={field} />
      <input
        id={id}
        type="password"
        className="mono"
        value={value}
        placeholder={field.placeholder ?? undefined}
        onChange={(e) => onChange(e.target.value)}
        aria-invalid={issue ? true : undefined}
        aria-describedby={`${id}-hint`}
        autoComplete="new-password"
        spellCheck={false}
      />
      {field.description && !issue ? <p className="hint">{field.description}</p> : null}
      <Hint id={`${id}-hint`} hint={where} issue={issue} />
    </div>
  );
}

function FieldLabel({ id, field }: { id: string; field: CatalogField }) {
  return (
    <label htmlFor={id}>
      {field.key}{' '}
      <span className="muted small">
        {field.label} · {field.required ? 'required' : 'optional'}
        {field.secret ? ' · secret' : ''}
      </span>
    </label>
  );
}

function Hint({ id, hint, issue }: { id: string; hint: string | null; issue: string | undefined }) {
  if (issue)
    return (
      <p className="field-error" id={id} role="alert">
        {issue}
      </p>
    );
  return hint ? (
    <p className="hint" id={id}>
      {hint}
    </p>
  ) : null;
}

/** The value once it has stopped changing for `ms`. */
function useDebounced<T>(value: T, ms: number): T {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setSettled(value), ms);
    return () => clearTimeout(timer);
  }, [value, ms]);
  return settled;
}
