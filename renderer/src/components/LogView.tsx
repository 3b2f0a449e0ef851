import { useVirtualizer } from '@tanstack/react-virtual';
import { useDeferredValue, useId, useLayoutEffect, useRef, useState, type ReactNode } from 'react';
import { displayText } from '../../../shared/display-text.ts';
import { useLogStore } from '../api/context.tsx';
import type { LevelFilter } from '../api/log-store.ts';
import { useServerLog } from '../api/hooks.ts';
import { formatTime } from '../lib/format.ts';

/** Every row has the same height: no measuring, no jumps while lines stream in. */
const ROW_HEIGHT = 20;

/**
 * The rows' width: the longest line so far (monospace, so characters are a width), plus the time,
 * level and source columns (28ch), gaps and padding. Long lines scroll sideways instead of being cut,
 * and the scroll width only grows, so it does not jump as other rows come into view.
 */
function rowsWidth(longest: number): string {
  return `max(100%, calc(${28 + 2 + longest}ch + 50px))`;
}

function highlight(text: string, query: string): ReactNode {
  if (!query) return text;
  const lower = text.toLowerCase();
  const needle = query.toLowerCase();
  const parts: ReactNode[] = [];
  let at = 0;
  for (let i = lower.indexOf(needle); i >= 0; i = lower.indexOf(needle, i + needle.length)) {
    parts.push(text.slice(at, i), <mark key={i}>{text.slice(i, i + needle.length)}</mark>);
    at = i + needle.length;
  }
  parts.push(text.slice(at));
  return parts;
}

/** A server's live log: follow, search, level filter; virtualized, smooth at 100,000 lines and more. */
export function LogView({ server }: { server: string }) {
  const id = useId();
  const store = useLogStore();
  // `version` moves once per frame of new lines: it re-renders this view, and the store's filter
  // picks up only the lines it has not scanned yet.
  const { lines, version, seeded } = useServerLog(server);
  const [query, setQuery] = useState('');
  const deferredQuery = useDeferredValue(query);
  const [level, setLevel] = useState<LevelFilter>('all');
  const [follow, setFollow] = useState(true);
  const filtered = store.filtered(server, deferredQuery, level);
  const count = filtered ? filtered.length : lines.length;
  const scrollRef = useRef<HTMLDivElement>(null);

  // This build does not use the React Compiler, so the virtualizer's non-memoizable API is fine here.
  // eslint-disable-next-line react-hooks/incompatible-library
  const virtualizer = useVirtualizer({
    count,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => ROW_HEIGHT,
    overscan: 30,
  });

  useLayoutEffect(() => {
    if (follow && count > 0) virtualizer.scrollToIndex(count - 1, { align: 'end' });
  }, [follow, count, version, virtualizer]);

  const onScroll = () => {
    const el = scrollRef.current;
    if (!el) return;
    const atBottom = el.scrollHeight - el.scrollTop - el.clientHeight < ROW_HEIGHT * 2;
    if (atBottom !== follow) setFollow(atBottom);
  };

  const items = virtualizer.getVirtualItems();
  return (
    <div className="logs" data-testid="log-view">
      <div className="log-toolbar">
        <div className="field inline">
          <label htmlFor={`${id}-search`}>Search</label>
          <input
            id={`${id}-search`}
            type="search"
            value={query}
            placeholder="text in the line"
            onChange={(e) => setQuery(e.target.value)}
          />
        </div>
        <div className="field inline">
          <label htmlFor={`${id}-level`}>Level</label>
          <select id={`${id}-level`} value={level} onChange={(e) => setLevel(e.target.value as LevelFilter)}>
            <option value="all">All</option>
            <option value="warn">Warnings and errors</option>
            <option value="error">Errors only</option>
          </select>
        </div>
        <label className="check">
          <input type="checkbox" checked={follow} onChange={(e) => setFollow(e.target.checked)} />
          Follow
        </label>
        <span className="log-count muted small" aria-live="off" data-testid="log-count">
          {filtered
            ? `${count.toLocaleString()} of ${lines.length.toLocaleString()} lines`
            : `${count.toLocaleString()} lines`}
        </span>
        <button type="button" className="small quiet" onClick={() => store.clear(server)}>
          Clear view
        </button>
      </div>
      <div
        ref={scrollRef}
        className="log-scroll"
        role="log"
        aria-live="off"
        aria-label={`Log of ${server}`}
        tabIndex={0}
        onScroll={onScroll}
      >
        {count === 0 ? (
          <p className="log-empty muted">
            {!seeded
              ? 'Loading the log…'
              : lines.length === 0
                ? 'No log lines yet. Lines appear here as the server writes to stderr and as Switchboard starts, stops and restarts it.'
                : 'No line matches the search and level filter.'}
          </p>
        ) : null}
        <div
          className="log-rows"
          style={{ height: virtualizer.getTotalSize(), width: rowsWidth(store.longest(server)) }}
        >
          {items.map((item) => {
            const line = lines[filtered ? (filtered[item.index] as number) : item.index];
            if (!line) return null;
            // A server's own words: control, bidi and invisible characters show instead of acting.
            const text = displayText(line.text);
            return (
              <div
                key={item.key}
                className={`log-row lvl-${line.level} src-${line.source}`}
                style={{ transform: `translateY(${item.start}px)` }}
                // the whole line on hover, wherever the row is scrolled to
                title={text}
              >
                <span className="log-time">{formatTime(line.ts)}</span>
                <span className="log-level">
                  {line.level === 'info' ? 'info' : line.level === 'warn' ? 'WARN' : 'ERROR'}
                </span>
                <span className="log-src">{line.source === 'lifecycle' ? 'switchboard' : 'stderr'}</span>
                <span className="log-text">{highlight(text, deferredQuery)}</span>
              </div>
            );
          })}
        </div>
      </div>
      {!follow && count > 0 ? (
        <button type="button" className="small jump" onClick={() => setFollow(true)}>
          Jump to newest
        </button>
      ) : null}
    </div>
  );
}
