import { useId, useState, type DragEvent, type FormEvent } from 'react';
import type { BundleAdded, BundleView } from '../../../shared/store.ts';
import { useApi } from '../api/context.tsx';
import { useCommand } from '../api/hooks.ts';
import { keys } from '../api/keys.ts';
import { missingBundleValues } from '../lib/bundle-form.ts';
import { href } from '../router.ts';
import { ErrorText } from './Feedback.tsx';

/** The file's bytes as base64, for the upload (it crosses the desktop app's IPC as JSON too). */
async function base64Of(file: File): Promise<string> {
  const bytes = new Uint8Array(await file.arrayBuffer());
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000)
    binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}

/**
 * An MCP bundle (.mcpb, Claude Desktop's extension format), dropped here or picked: it is unpacked and
 * checked into Switchboard's store, its settings are asked for (secrets go to the keychain), and its
 * server waits for approval like any other, for every editor.
 */
export default function AddBundle() {
  const api = useApi();
  const id = useId();
  const [over, setOver] = useState(false);
  const upload = useCommand(async (file: File) => api.uploadBundle(file.name, await base64Of(file)));
  const take = (file: File | undefined) => {
    if (file) upload.mutate(file);
  };
  const onDrop = (e: DragEvent) => {
    e.preventDefault();
    setOver(false);
    take(e.dataTransfer.files[0]);
  };
  return (
    <div className="card">
      <div
        className={over ? 'drop-zone over' : 'drop-zone'}
        data-testid="bundle-drop"
        onDragOver={(e) => {
          e.preventDefault();
          setOver(true);
        }}
        onDragLeave={() => setOver(false)}
        onDrop={onDrop}
      >
        <p>
          Drop an <code>.mcpb</code> file here, or{' '}
          <label htmlFor={`${id}-file`} className="link">
            choose one
          </label>
          .
        </p>
        <input
          id={`${id}-file`}
          type="file"
          accept=".mcpb,.dxt"
          className="visually-hidden"
          onChange={(e) => take(e.target.files?.[0])}
        />
        <p className="muted">
          It is unpacked into Switchboard’s package store and checked (manifest, signature) before you see
          what it would run.
        </p>
      </div>
      {upload.isPending ? <p role="status">Unpacking and checking…</p> : null}
      {upload.error ? <ErrorText error={upload.error} /> : null}
      {upload.data ? <BundleSettings key={upload.data.id} bundle={upload.data} /> : null}
    </div>
  );
}

function BundleSettings({ bundle }: { bundle: BundleView }) {
  const api = useApi();
  const id = useId();
  const [name, setName] = useState(bundle.suggestedName);
  const [values, setValues] = useState<Record<string, string>>({});
  /** required values found empty at the last Add, by key: said at their fields until given */
  const [missing, setMissing] = useState<Record<string, string>>({});
  const add = useCommand(
    (args: { name: string; values: Record<string, string> }) =>
      api.addBundle(bundle.id, args.name, args.values),
    [keys.status, keys.approvals, keys.secrets, keys.store],
  );
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const empty = missingBundleValues(bundle.fields, values);
    setMissing(empty);
    const first = Object.keys(empty)[0];
    if (first !== undefined) {
      document.getElementById(`${id}-${first}`)?.focus();
      return;
    }
    const given = Object.fromEntries(Object.entries(values).filter(([, v]) => v !== ''));
    add.mutate({ name, values: given });
  };
  if (add.data) return <BundleAddedNote added={add.data} />;
  return (
    <form onSubmit={submit} aria-labelledby={`${id}-title`} data-testid="bundle-settings">
      <h2 id={`${id}-title`}>
        {bundle.displayName} {bundle.version}
      </h2>
      <dl className="facts">
        <div>
          <dt>By</dt>
          <dd>{bundle.author}</dd>
        </div>
        <div>
          <dt>Signature</dt>
          <dd>
            {bundle.signature === 'signed' ? 'signed' : `${bundle.signature}: nobody vouches for who made it`}
          </dd>
        </div>
        <div>
          <dt>Entry point</dt>
          <dd>
            <code>{bundle.entryPoint}</code>
          </dd>
        </div>
      </dl>
      <p className="muted">{bundle.description}</p>
      <div className="field">
        <label htmlFor={`${id}-name`}>Server name</label>
        <input id={`${id}-name`} className="mono" value={name} onChange={(e) => setName(e.target.value)} />
      </div>
      {bundle.fields.map((field) => {
        const issue = values[field.key] ? undefined : missing[field.key];
        return (
          <div className="field" key={field.key}>
            <label htmlFor={`${id}-${field.key}`}>
              {field.title}
              {field.required ? ' (required)' : ''}
              {field.sensitive ? ' — kept in your keychain' : ''}
            </label>
            <input
              id={`${id}-${field.key}`}
              type={field.sensitive ? 'password' : 'text'}
              autoComplete="off"
              placeholder={field.default ?? ''}
              value={values[field.key] ?? ''}
              onChange={(e) => setValues({ ...values, [field.key]: e.target.value })}
              aria-invalid={issue ? true : undefined}
              aria-describedby={issue ? `${id}-${field.key}-error` : undefined}
            />
            {issue ? (
              <p className="field-error" id={`${id}-${field.key}-error`} role="alert">
                {issue}
              </p>
            ) : null}
            {field.description ? <p className="muted">{field.description}</p> : null}
          </div>
        );
      })}
      <div className="form-actions">
        <button type="submit" className="primary" disabled={add.isPending}>
          {add.isPending ? 'Adding…' : `Add ${name}`}
        </button>
      </div>
      {add.error ? <ErrorText error={add.error} /> : null}
    </form>
  );
}

function BundleAddedNote({ added }: { added: BundleAdded }) {
  return (
    <div className="banner ok added" role="status" data-testid="bundle-added">
      <p>
        <strong>
          Added {added.name} to <code>servers.json</code>.
        </strong>{' '}
        It waits for your approval before it runs.
        {added.secrets.length
          ? ` Its secret settings are in your keychain (${added.secrets.join(', ')}).`
          : ''}
      </p>
      <div className="form-actions">
        <a className="button primary" href={href({ view: 'approvals', server: added.name })}>
          Review in Approvals
        </a>
      </div>
    </div>
  );
}
