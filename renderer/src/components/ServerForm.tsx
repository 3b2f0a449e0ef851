import { displayText, hasHiddenCharacters } from '../../../shared/display-text.ts';
import { useId, useMemo, useState, type ChangeEvent, type FormEvent, type ReactNode } from 'react';
import { EDITOR_IDS, EDITOR_LABELS } from '../../../shared/editors.ts';
import { secretKeyKind } from '../../../shared/secrets.ts';
import type { FieldIssue } from '../../../shared/server-validation.ts';
import { HIDDEN_SECRET, type SecretFinding } from '../../../shared/ui-api.ts';
import {
  checkDraft,
  fieldKey,
  newRow,
  splitArgs,
  type Draft,
  type FieldKey,
  type KeyValueRow,
} from '../lib/server-draft.ts';
import { argumentNumber } from '../lib/format.ts';

/** Splits a pasted shell-style command line into words (quotes respected, no expansion). */
export function splitCommandLine(line: string): string[] {
  const words: string[] = [];
  let current = '';
  let quote: '"' | "'" | undefined;
  let inWord = false;
  for (const ch of line.trim()) {
    if (quote) {
      if (ch === quote) quote = undefined;
      else current += ch;
    } else if (ch === '"' || ch === "'") {
      quote = ch;
      inWord = true;
    } else if (/\s/.test(ch)) {
      if (inWord) words.push(current);
      current = '';
      inWord = false;
    } else {
      current += ch;
      inWord = true;
    }
  }
  if (inWord) words.push(current);
  return words;
}

export interface ServerFormProps {
  mode: 'add' | 'edit';
  /** the entry as written (edit), or undefined (add) */
  original?: unknown;
  draft: Draft;
  onDraft: (draft: Draft) => void;
  name?: string;
  onName?: (name: string) => void;
  /** issues the core reported for the last save (shown at their fields too) */
  serverIssues?: FieldIssue[];
  literalSecrets?: SecretFinding[];
  onStoreSecret?: (key: string) => void;
  storing?: string | undefined;
  busy: boolean;
  submitLabel: string;
  onSubmit: (config: Record<string, unknown>) => void;
  footer?: ReactNode;
}

/**
 * The server form: local program (command, arguments, environment, folder) or remote URL (headers),
 * and which editors get it. Checked as you type with the core's own zod schema; each error sits at
 * its field, in words.
 */
export function ServerForm(props: ServerFormProps) {
  const { draft, onDraft, mode } = props;
  const id = useId();
  const [touched, setTouched] = useState<Set<string>>(() => new Set(mode === 'edit' ? ['*'] : []));
  const [tried, setTried] = useState(false);
  const check = useMemo(
    () => checkDraft(draft, props.original ?? {}, mode === 'add' ? (props.name ?? '') : undefined),
    [draft, props.original, props.name, mode],
  );
  const errors = useMemo(() => {
    const all = new Map(check.errors);
    for (const issue of props.serverIssues ?? []) {
      const key = fieldKey(issue.path);
      if (!all.get(key)?.includes(issue.message)) all.set(key, [...(all.get(key) ?? []), issue.message]);
    }
    return all;
  }, [check.errors, props.serverIssues]);
  const valid = check.errors.size === 0;

  const show = (field: string) => tried || touched.has('*') || touched.has(field);
  const touch = (field: string) => setTouched((t) => (t.has(field) ? t : new Set([...t, field])));
  const set = <K extends keyof Draft>(field: K, value: Draft[K]) => {
    touch(field);
    onDraft({ ...draft, [field]: value });
  };
  const errorsOf = (key: FieldKey, field = key.split(':')[0] ?? key) =>
    show(field) ? (errors.get(key) ?? []) : [];
  const errId = (key: string) => `${id}-err-${key.replace(/[^a-zA-Z0-9_-]/g, '_')}`;

  const fieldErrors = (key: FieldKey, field?: string) => {
    const list = errorsOf(key, field);
    if (list.length === 0) return null;
    return (
      <div className="field-error" id={errId(key)} role="alert">
        {list.map((m) => (
          <p key={m}>{m}</p>
        ))}
      </div>
    );
  };
  const a11y = (key: FieldKey, field?: string) => {
    const has = errorsOf(key, field).length > 0;
    return { 'aria-invalid': has || undefined, 'aria-describedby': has ? errId(key) : undefined };
  };

  /** The props every text field of the draft shares: id, name, value, no spell check, its errors. */
  const textProps = (field: TextField) => ({
    id: `${id}-${field}`,
    name: field,
    value: draft[field],
    spellCheck: false,
    onChange: (e: ChangeEvent<HTMLInputElement | HTMLTextAreaElement>) => set(field, e.target.value),
    ...a11y(field),
  });
  const secretOffers = (field: 'args' | 'url', what: (finding: SecretFinding) => ReactNode) =>
    props.literalSecrets
      ?.filter((f) => f.field === field)
      .map((f) => (
        <SecretOffer
          key={f.key}
          finding={f}
          what={what(f)}
          onStoreSecret={props.onStoreSecret}
          storing={props.storing}
        />
      ));
  const keyValueProps = (field: 'env' | 'headers') => ({
    field,
    rows: draft[field],
    onRows: (rows: KeyValueRow[]) => set(field, rows),
    errorsOf,
    fieldErrors,
    a11y,
    literalSecrets: props.literalSecrets,
    onStoreSecret: props.onStoreSecret,
    storing: props.storing,
  });

  const submit = (e: FormEvent) => {
    e.preventDefault();
    setTried(true);
    if (!valid || props.busy) return;
    props.onSubmit(check.config);
  };

  const shellForm = draft.kind === 'stdio' && /\s/.test(draft.command.trim());

  return (
    <form
      className="server-form"
      onSubmit={submit}
      noValidate
      aria-label={mode === 'add' ? 'New server' : 'Server settings'}
    >
      {mode === 'add' ? (
        <div className="field">
          <label htmlFor={`${id}-name`}>Name</label>
          <input
            id={`${id}-name`}
            name="name"
            value={props.name ?? ''}
            autoComplete="off"
            spellCheck={false}
            onChange={(e) => {
              touch('name');
              props.onName?.(e.target.value);
            }}
            {...a11y('name')}
          />
          <p className="hint">Letters, digits, “-” and “_”. Editors see it as the server’s name.</p>
          {fieldErrors('name')}
        </div>
      ) : null}

      <fieldset className="field kind">
        <legend>Kind</legend>
        <Radio name={`${id}-kind`} checked={draft.kind === 'stdio'} onChoose={() => set('kind', 'stdio')}>
          Local program <span className="muted">(runs on this computer, over stdio)</span>
        </Radio>
        <Radio name={`${id}-kind`} checked={draft.kind === 'remote'} onChoose={() => set('kind', 'remote')}>
          Remote URL <span className="muted">(an MCP server on the web)</span>
        </Radio>
      </fieldset>

      {draft.kind === 'stdio' ? (
        <>
          <div className="field">
            <label htmlFor={`${id}-command`}>Command</label>
            <input className="mono" autoComplete="off" {...textProps('command')} />
            <p className="hint">
              The program only, without arguments: <code>npx</code>, <code>uvx</code>, <code>node</code>,{' '}
              <code>docker</code> or a full path. It runs without a shell.
            </p>
            <HiddenCharacters what="The command" values={[draft.command]} />
            {fieldErrors('command')}
            {shellForm && show('command') ? (
              <button
                type="button"
                className="small"
                onClick={() => {
                  const [command = '', ...args] = splitCommandLine(draft.command);
                  const existing = splitArgs(draft.args);
                  onDraft({ ...draft, command, args: [...args, ...existing].join('\n') });
                }}
              >
                Move the arguments to “Arguments”
              </button>
            ) : null}
          </div>
          <div className="field">
            <label htmlFor={`${id}-args`}>Arguments</label>
            <textarea
              className="mono"
              rows={Math.min(8, Math.max(2, splitArgs(draft.args).length + 1))}
              {...textProps('args')}
            />
            <p className="hint">One argument per line, exactly as the program gets it (no quoting needed).</p>
            <HiddenCharacters what="An argument" values={splitArgs(draft.args)} />
            {secretOffers('args', (f) => (
              <strong>Argument {argumentNumber(f.key) ?? f.key}</strong>
            ))}
            {fieldErrors('args')}
          </div>
          <KeyValueEditor
            legend="Environment variables"
            {...keyValueProps('env')}
            hint={
              <>
                For secrets write <code>{'${secret:NAME}'}</code> (from the OS keychain, see Secrets) and for
                your environment <code>{'${env:NAME}'}</code>.
              </>
            }
          />
          <div className="field">
            <label htmlFor={`${id}-cwd`}>
              Working folder <span className="muted">(optional)</span>
            </label>
            <input className="mono" {...textProps('cwd')} />
            <HiddenCharacters what="The working folder" values={[draft.cwd]} />
            {fieldErrors('cwd')}
          </div>
        </>
      ) : (
        <>
          <div className="field">
            <label htmlFor={`${id}-url`}>URL</label>
            <input type="url" className="mono" placeholder="https://example.com/mcp" {...textProps('url')} />
            <HiddenCharacters what="The URL" values={[draft.url]} />
            {secretOffers('url', () => (
              <strong>The URL</strong>
            ))}
            {fieldErrors('url')}
          </div>
          <KeyValueEditor
            legend="Headers"
            {...keyValueProps('headers')}
            hint={
              <>
                Credentials belong in the keychain: <code>{'Bearer ${secret:NAME}'}</code>. Editors never see
                them.
              </>
            }
          />
        </>
      )}

      <fieldset className="field editors-choice">
        <legend>Editors</legend>
        <Radio
          name={`${id}-editors`}
          checked={draft.editorsMode === 'all'}
          onChoose={() => set('editorsMode', 'all')}
        >
          Every enabled editor
        </Radio>
        <Radio
          name={`${id}-editors`}
          checked={draft.editorsMode === 'some'}
          onChoose={() => set('editorsMode', 'some')}
        >
          Only these:
        </Radio>
        {draft.editorsMode === 'some' ? (
          <div className="checks">
            {EDITOR_IDS.map((editor) => (
              <label key={editor}>
                <input
                  type="checkbox"
                  checked={draft.editors.includes(editor)}
                  onChange={(e) =>
                    set(
                      'editors',
                      e.target.checked
                        ? [...draft.editors, editor]
                        : draft.editors.filter((x) => x !== editor),
                    )
                  }
                />
                {EDITOR_LABELS[editor]}
              </label>
            ))}
          </div>
        ) : null}
        {fieldErrors('editors')}
      </fieldset>

      <fieldset className="field sharing-choice">
        <legend>Editors using it at once</legend>
        <Radio name={`${id}-sharing`} checked={!draft.isolated} onChoose={() => set('isolated', false)}>
          Share one process
        </Radio>
        <Radio name={`${id}-sharing`} checked={draft.isolated} onChoose={() => set('isolated', true)}>
          One process per editor session (isolated)
        </Radio>
        <p className="hint">
          {draft.isolated
            ? 'Each editor session gets a process of its own, told only that editor’s capabilities and workspace folders. For servers that keep state per client; costs one process per session.'
            : 'Every editor talks to the same process. It sees the workspace folders (roots) of all of them together, and keeps one state for all.'}
        </p>
      </fieldset>

      {fieldErrors('', '*')}
      <div className="form-actions">
        <button type="submit" className="primary" disabled={props.busy || (tried && !valid)}>
          {props.busy ? 'Saving…' : props.submitLabel}
        </button>
        {tried && !valid ? (
          <span className="error" role="status">
            Fix the fields marked above first.
          </span>
        ) : null}
        {props.footer}
      </div>
    </form>
  );
}

type TextField = 'command' | 'args' | 'cwd' | 'url';

/** One option of a radio group, its label wrapping it (so the whole line is the hit target). */
function Radio(props: { name: string; checked: boolean; onChoose: () => void; children: ReactNode }) {
  return (
    <label>
      <input type="radio" name={props.name} checked={props.checked} onChange={props.onChoose} />
      {props.children}
    </label>
  );
}

function KeyValueEditor(props: {
  legend: string;
  field: 'env' | 'headers';
  rows: KeyValueRow[];
  onRows: (rows: KeyValueRow[]) => void;
  errorsOf: (key: FieldKey, field?: string) => string[];
  fieldErrors: (key: FieldKey, field?: string) => ReactNode;
  a11y: (
    key: FieldKey,
    field?: string,
  ) => { 'aria-invalid': true | undefined; 'aria-describedby': string | undefined };
  literalSecrets?: SecretFinding[] | undefined;
  onStoreSecret?: ((key: string) => void) | undefined;
  storing?: string | undefined;
  hint: ReactNode;
}) {
  const { rows, onRows, field } = props;
  const id = useId();
  const [revealed, setRevealed] = useState<Set<number>>(() => new Set());
  const what = field === 'env' ? 'variable' : 'header';
  const update = (row: KeyValueRow, patch: Partial<KeyValueRow>) =>
    onRows(rows.map((r) => (r.id === row.id ? { ...r, ...patch } : r)));
  return (
    <fieldset className="field kv">
      <legend>{props.legend}</legend>
      {rows.length === 0 ? <p className="muted small">None.</p> : null}
      {rows.map((row, index) => {
        const key = row.key.trim();
        const finding = props.literalSecrets?.find((f) => f.field === field && f.key === key);
        const hidden = row.value === HIDDEN_SECRET;
        const secretish = secretKeyKind(key) !== undefined && !row.value.includes('${');
        const masked = secretish && !hidden && !revealed.has(row.id);
        const errorKey = props.errorsOf(`row:${row.id}`, field).length ? `row:${row.id}` : `${field}:${key}`;
        return (
          <div className="kv-row" key={row.id} data-key={key}>
            <input
              aria-label={`${what} ${index + 1} name`}
              className="mono kv-key"
              value={row.key}
              placeholder="NAME"
              spellCheck={false}
              autoComplete="off"
              onChange={(e) => update(row, { key: e.target.value })}
              {...props.a11y(errorKey, field)}
            />
            <span aria-hidden="true">=</span>
            <input
              aria-label={`${what} ${key || index + 1} value`}
              className="mono kv-value"
              type={masked ? 'password' : 'text'}
              value={row.value}
              readOnly={hidden}
              placeholder="value"
              spellCheck={false}
              autoComplete="off"
              onChange={(e) => update(row, { value: e.target.value })}
              {...props.a11y(errorKey, field)}
            />
            {secretish && !hidden ? (
              <button
                type="button"
                className="small"
                aria-pressed={!masked}
                onClick={() =>
                  setRevealed((r) => {
                    const next = new Set(r);
                    if (next.has(row.id)) next.delete(row.id);
                    else next.add(row.id);
                    return next;
                  })
                }
              >
                {masked ? 'Show' : 'Hide'}
              </button>
            ) : null}
            {hidden ? (
              <button type="button" className="small" onClick={() => update(row, { value: '' })}>
                Replace
              </button>
            ) : null}
            <button
              type="button"
              className="small quiet"
              aria-label={`Remove ${what} ${key || index + 1}`}
              onClick={() => onRows(rows.filter((r) => r.id !== row.id))}
            >
              Remove
            </button>
            <HiddenCharacters
              what={what === 'variable' ? 'This variable' : 'This header'}
              // a masked value stays masked: only its name is shown
              values={masked ? [row.key] : [row.key, row.value]}
            />
            {finding ? (
              <SecretOffer
                finding={finding}
                what={<strong>{key}</strong>}
                onStoreSecret={props.onStoreSecret}
                storing={props.storing}
              />
            ) : null}
            {props.fieldErrors(errorKey, field)}
          </div>
        );
      })}
      <div>
        <button type="button" className="small" id={`${id}-add`} onClick={() => onRows([...rows, newRow()])}>
          Add {what}
        </button>
      </div>
      <p className="hint">{props.hint}</p>
      {props.fieldErrors(field)}
    </fieldset>
  );
}

/**
 * Under a field whose text has control, bidi, line-break or invisible characters: what it says exactly,
 * escaped (shared/display-text.ts), since the field itself draws them as nothing or reorders the text.
 */
function HiddenCharacters({ what, values }: { what: string; values: string[] }) {
  const found = values.filter(hasHiddenCharacters);
  if (found.length === 0) return null;
  return (
    <div className="hidden-chars" role="note" data-testid="hidden-characters">
      <span>
        {what} has characters that do not show here (control, bidi, line-break or invisible). Exactly, it
        reads:
      </span>
      {found.map((value, i) => (
        <code key={i}>{displayText(value)}</code>
      ))}
    </div>
  );
}

/**
 * A literal secret found in the entry, with the one-click fix: move it into the keychain and put a
 * `${secret:…}` reference in its place (the core's `secret move`, by the finding's key).
 */
function SecretOffer({
  finding,
  what,
  onStoreSecret,
  storing,
}: {
  finding: SecretFinding;
  what: ReactNode;
  onStoreSecret?: ((key: string) => void) | undefined;
  storing?: string | undefined;
}) {
  return (
    <div className="secret-offer" role="note" data-secret-key={finding.key}>
      <span>
        {what} holds a literal secret ({finding.reason}). Switchboard will not run it like this.
      </span>
      {onStoreSecret ? (
        <button
          type="button"
          className="primary small"
          disabled={storing !== undefined}
          onClick={() => onStoreSecret(finding.key)}
        >
          {storing === finding.key ? 'Storing…' : 'Store in keychain'}
        </button>
      ) : null}
    </div>
  );
}
