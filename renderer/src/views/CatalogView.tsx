import { useInfiniteQuery, useQuery, useQueryClient } from '@tanstack/react-query';
import { useId, useRef, useState, type FormEvent, type ReactNode } from 'react';
import {
  freshnessWords,
  type CatalogDetail,
  type CatalogEntry,
  type CatalogFreshness,
  type CatalogOption,
  type InstallKind,
} from '../../../shared/catalog.ts';
import { useApi } from '../api/context.tsx';
import { keys } from '../api/keys.ts';
import { CatalogInstall } from '../components/CatalogInstall.tsx';
import { EmptyState, ErrorText, Loading } from '../components/Feedback.tsx';
import { ViewTitle } from '../components/ViewTitle.tsx';
import { plural } from '../lib/format.ts';
import { useNow } from '../lib/use-now.ts';
import { href } from '../router.ts';

/**
 * The MCP Registry catalog: search it, open a server to see how it runs and what it needs, install
 * it (pending approval, with the exact command shown and its secrets put in the keychain). Answers
 * come from the core, which caches them: offline or with the registry down, the view shows what it
 * last saw and how old that is.
 */
export default function CatalogView({
  server,
  version,
}: {
  server?: string | undefined;
  version?: string | undefined;
}) {
  return server ? <CatalogServer name={server} version={version} /> : <CatalogSearch />;
}

export const KIND_LABELS: Record<InstallKind, string> = {
  npm: 'npm',
  pypi: 'PyPI',
  oci: 'Docker',
  remote: 'Remote',
  other: 'Other',
};

/** The last search, kept while the page is open: coming back from a server's page shows it again. */
let lastSearch = '';

function CatalogSearch() {
  const api = useApi();
  const id = useId();
  const [term, setTerm] = useState(lastSearch);
  const [search, setSearch] = useState(lastSearch);
  const refresh = useRef(false);
  const results = useInfiniteQuery({
    queryKey: keys.catalogSearch(search),
    queryFn: ({ pageParam }) => {
      const fresh = refresh.current;
      refresh.current = false;
      return api.catalog.search({
        search,
        ...(pageParam ? { cursor: pageParam } : {}),
        ...(fresh ? { refresh: true } : {}),
      });
    },
    initialPageParam: '',
    getNextPageParam: (last) => last.nextCursor ?? undefined,
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    lastSearch = term.trim();
    setSearch(lastSearch);
  };
  const pages = results.data?.pages ?? [];
  const first = pages[0];
  const entries = pages.flatMap((p) => p.entries);
  const skipped = pages.reduce((n, p) => n + p.skipped, 0);
  return (
    <section>
      <ViewTitle>Catalog</ViewTitle>
      <p className="muted">
        Servers published in the MCP Registry. Installing one adds it to <code>servers.json</code>, where it
        waits for your approval; its secrets go to your keychain.
      </p>
      <form className="catalog-search" role="search" onSubmit={submit}>
        <label htmlFor={`${id}-q`} className="visually-hidden">
          Search the registry
        </label>
        <input
          id={`${id}-q`}
          type="search"
          placeholder="Search by name or description, e.g. github, postgres, browser"
          value={term}
          onChange={(e) => setTerm(e.target.value)}
          autoComplete="off"
          spellCheck={false}
        />
        <button type="submit" className="primary">
          Search
        </button>
      </form>
      {first ? (
        <Freshness
          freshness={first}
          onRefresh={() => {
            refresh.current = true;
            void results.refetch();
          }}
          busy={results.isFetching}
        />
      ) : null}
      {results.isPending ? <Loading what="the catalog" /> : null}
      {results.error ? (
        <RegistryProblem error={results.error} onRetry={() => void results.refetch()} />
      ) : null}
      {first && entries.length === 0 ? (
        <EmptyState title={search ? `No server matches “${search}”` : 'The registry lists no servers'}>
          <p>
            {first.fromCache
              ? 'Offline, the catalog searches what it saw earlier; search again when the registry can be reached.'
              : 'Try a shorter or different word: the registry matches names and descriptions.'}
          </p>
        </EmptyState>
      ) : null}
      {entries.length > 0 ? (
        <ul className="catalog-results" aria-label="Servers in the registry" data-testid="catalog-results">
          {entries.map((entry) => (
            <EntryRow key={`${entry.name}@${entry.version}`} entry={entry} />
          ))}
        </ul>
      ) : null}
      {skipped > 0 ? (
        <p className="muted small">
          {plural(skipped, 'entry', 'entries')} of the registry’s answer {skipped === 1 ? 'is' : 'are'} not
          valid server.json and {skipped === 1 ? 'is' : 'are'} not shown.
        </p>
      ) : null}
      {results.hasNextPage ? (
        <button
          type="button"
          disabled={results.isFetchingNextPage}
          onClick={() => void results.fetchNextPage()}
        >
          {results.isFetchingNextPage ? 'Loading…' : 'Show more'}
        </button>
      ) : null}
    </section>
  );
}

function EntryRow({ entry }: { entry: CatalogEntry }) {
  return (
    <li className="catalog-entry" data-entry={entry.name}>
      <a href={href({ view: 'catalog', server: entry.name })} className="catalog-entry-link">
        <span className="catalog-entry-title">{entryTitle(entry)}</span>
        <span className="muted small mono">
          {entry.name} · {entry.version}
        </span>
      </a>
      <p className="catalog-description">
        {entry.description || <span className="muted">No description.</span>}
      </p>
      <ul className="chips" aria-label="Runs as">
        {entry.status ? <li className="chip tone-warn">{entry.status}</li> : null}
        {entry.kinds.map((kind) => (
          <li key={kind} className="chip">
            {KIND_LABELS[kind]}
          </li>
        ))}
      </ul>
    </li>
  );
}

/** Its title, else the last part of its name (io.github.owner/some-server → some-server). */
function entryTitle(entry: CatalogEntry): string {
  return entry.title ?? entry.name.slice(entry.name.lastIndexOf('/') + 1);
}

/** Where the answer came from: live, or the cache (with its age, and why when the registry failed). */
function Freshness({
  freshness,
  onRefresh,
  busy,
}: {
  freshness: CatalogFreshness;
  onRefresh: () => void;
  busy: boolean;
}) {
  // An age in minutes only moves while it is shown at all (answers from the cache).
  const now = useNow(freshness.fromCache);
  const words = freshnessWords(freshness, now);
  const refresh = (
    <button type="button" className="quiet small" onClick={onRefresh} disabled={busy}>
      {busy ? 'Asking the registry…' : 'Refresh'}
    </button>
  );
  if (freshness.fromCache && freshness.problem)
    return (
      <div className="banner warn" role="status" data-testid="catalog-freshness">
        <span>
          <strong>The registry cannot be used right now; this is what the catalog saw earlier.</strong>{' '}
          {words}
        </span>
        {refresh}
      </div>
    );
  return (
    <p className="muted small catalog-freshness" data-testid="catalog-freshness">
      {words} {refresh}
    </p>
  );
}

function RegistryProblem({ error, onRetry }: { error: unknown; onRetry: () => void }) {
  return (
    <div className="banner error" role="alert" data-testid="catalog-error">
      <ErrorText error={error}>
        <strong>The catalog cannot be shown. </strong>
      </ErrorText>
      <button type="button" onClick={onRetry}>
        Try again
      </button>
      <span className="muted small">
        The registry address is under <a href={href({ view: 'settings' })}>Settings</a>.
      </span>
    </div>
  );
}

function CatalogServer({ name, version }: { name: string; version: string | undefined }) {
  const api = useApi();
  const client = useQueryClient();
  const refresh = useRef(false);
  const detail = useQuery({
    queryKey: keys.catalogServer(name, version),
    queryFn: () => {
      const fresh = refresh.current;
      refresh.current = false;
      return api.catalog.server({
        name,
        ...(version ? { version } : {}),
        ...(fresh ? { refresh: true } : {}),
      });
    },
  });
  const d = detail.data;
  return (
    <section>
      <p className="crumbs">
        <a href={href({ view: 'catalog' })}>← Catalog</a>
      </p>
      <ViewTitle>{d ? entryTitle(d.entry) : name}</ViewTitle>
      {detail.isPending ? <Loading what={name} /> : null}
      {detail.error ? <RegistryProblem error={detail.error} onRetry={() => void detail.refetch()} /> : null}
      {d ? (
        <>
          <Freshness
            freshness={d}
            busy={detail.isFetching}
            onRefresh={() => {
              refresh.current = true;
              void client.invalidateQueries({ queryKey: keys.catalogServer(name, version) });
            }}
          />
          <Summary detail={d} />
          {d.options.length === 0 ? (
            <EmptyState title="Nothing here Switchboard can run">
              <p>
                This entry names no package and no remote address.
                {d.website ? (
                  <>
                    {' '}
                    Its website may say how to set it up:{' '}
                    <a href={d.website} target="_blank" rel="noreferrer">
                      {d.website}
                    </a>
                    .
                  </>
                ) : null}
              </p>
            </EmptyState>
          ) : (
            <Install detail={d} />
          )}
        </>
      ) : null}
    </section>
  );
}

function Summary({ detail: d }: { detail: CatalogDetail }) {
  return (
    <div className="card catalog-summary">
      <p className="catalog-description">
        {d.entry.description || <span className="muted">No description.</span>}
      </p>
      {d.entry.status ? (
        <div className="banner warn" role="status">
          <strong>The registry marks this server {d.entry.status}.</strong> {d.statusMessage}
        </div>
      ) : null}
      <dl className="facts">
        <Fact label="Registry name">
          <code>{d.entry.name}</code>
        </Fact>
        <Fact label="Version">{d.entry.version}</Fact>
        {d.repository ? (
          <Fact label="Source">
            <a href={d.repository} target="_blank" rel="noreferrer">
              {d.repository}
            </a>
          </Fact>
        ) : null}
        {d.website ? (
          <Fact label="Website">
            <a href={d.website} target="_blank" rel="noreferrer">
              {d.website}
            </a>
          </Fact>
        ) : null}
        {d.publishedAt ? <Fact label="Published">{d.publishedAt.slice(0, 10)}</Fact> : null}
      </dl>
    </div>
  );
}

function Fact({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div>
      <dt>{label}</dt>
      <dd>{children}</dd>
    </div>
  );
}

function Install({ detail }: { detail: CatalogDetail }) {
  const id = useId();
  const [chosen, setChosen] = useState(detail.recommended ?? detail.options[0]?.id ?? '');
  const option = detail.options.find((o) => o.id === chosen) ?? detail.options[0];
  return (
    <>
      <fieldset className="field catalog-options">
        <legend>How it runs</legend>
        {detail.options.map((o) => (
          <label key={o.id} className={o.id === option?.id ? 'catalog-option chosen' : 'catalog-option'}>
            <input
              type="radio"
              name={`${id}-option`}
              value={o.id}
              checked={o.id === option?.id}
              onChange={() => setChosen(o.id)}
            />
            <OptionSummary option={o} />
          </label>
        ))}
      </fieldset>
      {option ? <CatalogInstall key={option.id} detail={detail} option={option} /> : null}
    </>
  );
}

function OptionSummary({ option }: { option: CatalogOption }) {
  return (
    <span className="catalog-option-text">
      <strong>{option.label}</strong>
      {option.problem ? (
        <span className="tone-danger small" data-testid="option-problem">
          <span aria-hidden="true">✗ </span>
          {option.problem}
        </span>
      ) : option.runtime ? (
        <span className="tone-ok small">
          <span aria-hidden="true">✓ </span>
          runs with {option.runtime} ({option.runtimePath})
        </span>
      ) : (
        <span className="muted small">connects over the network; nothing is installed on this computer</span>
      )}
      {option.notes.map((note) => (
        <span key={note} className="tone-warn small">
          <span aria-hidden="true">! </span>
          {note}
        </span>
      ))}
    </span>
  );
}
