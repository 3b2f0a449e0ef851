import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useId, useState } from 'react';
import type { ApprovalPreview } from '../../../shared/api.ts';
import { isUpdate, updateWords, type OutdatedEntry } from '../../../shared/store.ts';
import { UiApiError } from '../../../shared/ui-api.ts';
import { useApi } from '../api/context.tsx';
import { useUpdates } from '../api/hooks.ts';
import { keys } from '../api/keys.ts';
import { formatDateTime } from '../lib/format.ts';
import { href } from '../router.ts';
import { AccessParts, PackageParts, ReferenceParts } from './ApprovalParts.tsx';
import { ErrorText } from './Feedback.tsx';

/**
 * Approvals: every update the last check found, each to review and approve (or the servers it could
 * not check, and why). Nothing when there is none.
 */
export function UpdatesSection() {
  const updates = useUpdates();
  const [done, setDone] = useState<Done[]>([]);
  const entries = updates.data?.servers ?? [];
  if (entries.length === 0 && done.length === 0) return null;
  return (
    <>
      <h2>Updates available</h2>
      <p className="muted">
        Newer releases of packages your servers run
        {updates.data?.checkedAt ? `, as found ${formatDateTime(updates.data.checkedAt)}` : ''}. Nothing
        updates by itself: review what an update changes, then approve exactly that.
      </p>
      <UpdateList entries={entries} done={done} onDone={(d) => setDone((all) => [...all, d])} linked />
    </>
  );
}

/** A server's page: its update, when the last check found one. */
export function ServerUpdate({ name }: { name: string }) {
  const updates = useUpdates();
  const [done, setDone] = useState<Done[]>([]);
  const entries = (updates.data?.servers ?? []).filter((e) => e.server === name);
  return <UpdateList entries={entries} done={done} onDone={(d) => setDone((all) => [...all, d])} />;
}

interface Done {
  server: string;
  version: string;
}

function UpdateList({
  entries,
  done,
  onDone,
  linked = false,
}: {
  entries: readonly OutdatedEntry[];
  done: readonly Done[];
  onDone: (done: Done) => void;
  linked?: boolean;
}) {
  return (
    <>
      {done.map((d) => (
        <div key={`${d.server}@${d.version}`} className="banner ok" role="status" data-testid="update-done">
          <strong>
            Updated {d.server} to {d.version}.
          </strong>{' '}
          It starts from the new install; the version it replaced is removed from the store.
        </div>
      ))}
      {entries.map((entry) =>
        entry.error !== null ? (
          <div key={entry.server} className="banner warn" role="status" data-testid="update-check-failed">
            <strong>
              Could not check {entry.server} ({entry.package} {entry.current}) for updates:
            </strong>{' '}
            {entry.error} It keeps running the version you approved.
          </div>
        ) : isUpdate(entry) ? (
          <UpdateCard key={entry.server} entry={entry} linked={linked} onDone={onDone} />
        ) : entry.latest ? (
          <div key={entry.server} className="banner info" role="status" data-testid="update-pinned">
            <strong>
              {entry.package} {entry.latest} is out; {entry.server} runs {entry.current},
            </strong>{' '}
            the version its entry in servers.json asks for. Change the version there to move on.
          </div>
        ) : null,
      )}
    </>
  );
}

/**
 * One update: what the check found, then (Review update) the package resolved again at its registry,
 * with everything its approval covers and what changed since the approved version. Update approves
 * exactly the resolution shown (its fingerprint); if it changed meanwhile (a newer release, servers.json
 * edited), that is refused and the new one is shown, marked as such, for another look.
 */
function UpdateCard({
  entry,
  linked,
  onDone,
}: {
  entry: OutdatedEntry;
  linked: boolean;
  onDone: (done: Done) => void;
}) {
  const api = useApi();
  const client = useQueryClient();
  const id = useId();
  const [shown, setShown] = useState<ApprovalPreview>();
  const [changedWhileShown, setChangedWhileShown] = useState(false);
  const review = useMutation({
    mutationFn: () => api.reviewUpdate(entry.server),
    onSuccess: (preview) => setShown(preview),
  });
  const approve = useMutation({
    mutationFn: (fingerprint: string) => api.approve(entry.server, fingerprint),
    onSuccess: () => {
      onDone({ server: entry.server, version: shown?.package?.version ?? entry.wanted ?? '' });
      for (const queryKey of [keys.updates, keys.status, keys.store])
        void client.invalidateQueries({ queryKey });
    },
    onError: (err) => {
      // Not what was shown any more: resolve again and show that instead, saying so.
      if (err instanceof UiApiError && err.status === 409) {
        setShown(undefined);
        setChangedWhileShown(true);
        review.mutate();
      }
    },
  });
  const pkg = shown?.package ?? null;
  const upToDate = pkg?.changes?.[0]?.startsWith('nothing:') ?? false;
  const busy = review.isPending || approve.isPending;
  const name = linked ? (
    <a href={href({ view: 'server', name: entry.server, tab: 'config' })}>{entry.server}</a>
  ) : (
    entry.server
  );
  return (
    <article
      className="card approval update"
      aria-labelledby={`${id}-title`}
      data-update={entry.server}
      tabIndex={-1}
    >
      <header>
        <h2 id={`${id}-title`}>Update available: {name}</h2>
        <span className="muted" data-testid="update-summary">
          {updateWords(entry)}
        </span>
      </header>
      {entry.latest && entry.latest !== entry.wanted ? (
        <p className="muted">
          The newest release is {entry.latest}; its entry in servers.json allows up to {entry.wanted}.
        </p>
      ) : null}
      {!shown && entry.changes.length > 0 ? (
        <ul className="references" data-testid="update-found">
          {entry.changes.map((line) => (
            <li key={line}>{line}</li>
          ))}
        </ul>
      ) : null}
      {changedWhileShown ? (
        <div className="banner warn" role="status" data-testid="update-changed">
          <strong>What this update installs changed while it was shown</strong> (a newer release, or a change
          to servers.json). {shown ? 'This is the new one: review it again before you update.' : ''}
        </div>
      ) : null}
      {shown ? (
        <>
          <h3 className="label">
            {shown.transport === 'http' ? 'It will connect to' : 'It will run exactly'}
          </h3>
          <pre className="command" data-testid="update-command">
            {shown.lines.join('\n')}
          </pre>
          {shown.packageNote ? (
            <div className="banner warn" role="status">
              {shown.packageNote}
            </div>
          ) : null}
          {pkg ? <PackageParts review={pkg} testId="update" /> : null}
          <AccessParts access={shown.access} testId="update" />
          <ReferenceParts references={shown.references} testId="update" />
          {upToDate ? (
            <p className="ok-text" role="status" data-testid="update-nothing">
              Nothing to update: its registry offers the same packages you approved.
            </p>
          ) : null}
        </>
      ) : null}
      <div className="form-actions">
        {!shown ? (
          <button
            type="button"
            className="primary"
            disabled={busy}
            onClick={() => {
              setChangedWhileShown(false);
              review.mutate();
            }}
          >
            {review.isPending ? 'Checking its registry…' : 'Review update'}
          </button>
        ) : pkg && !upToDate ? (
          <>
            <button
              type="button"
              className="primary"
              disabled={busy}
              onClick={() => approve.mutate(shown.fingerprint)}
            >
              {approve.isPending ? 'Updating…' : `Update to ${pkg.version}`}
            </button>
            {pkg.scriptsFingerprint ? (
              <button
                type="button"
                disabled={busy}
                onClick={() => approve.mutate(pkg.scriptsFingerprint ?? shown.fingerprint)}
              >
                Update with install scripts
              </button>
            ) : null}
            <button type="button" className="quiet" disabled={busy} onClick={() => setShown(undefined)}>
              Not now
            </button>
          </>
        ) : null}
      </div>
      {review.error ? <ErrorText error={review.error} /> : null}
      {approve.error && !(approve.error instanceof UiApiError && approve.error.status === 409) ? (
        <ErrorText error={approve.error} />
      ) : null}
    </article>
  );
}
