import type { ActivityMinute, NamedCallStats, ServerActivity } from '../../../shared/activity.ts';

/** "12.3 ms", "1.2 s", "—" */
export function formatMs(ms: number | null): string {
  if (ms === null) return '—';
  if (ms >= 1_000) return `${Number((ms / 1_000).toPrecision(3))} s`;
  return `${Number(ms.toPrecision(3))} ms`;
}

const WIDTH = 600;
const HEIGHT = 72;
const BAR_GAP = 2;

/** Calls per minute over the hour as bars, the failed part of each in the danger colour. */
export function CallsChart({ minutes }: { minutes: readonly ActivityMinute[] }) {
  const most = Math.max(1, ...minutes.map((m) => m.calls));
  const width = WIDTH / Math.max(1, minutes.length);
  const calls = minutes.reduce((n, m) => n + m.calls, 0);
  const errors = minutes.reduce((n, m) => n + m.errors, 0);
  return (
    <figure className="chart">
      <figcaption>
        Calls per minute <span className="muted">(most: {most})</span>
      </figcaption>
      <svg
        viewBox={`0 0 ${WIDTH} ${HEIGHT}`}
        preserveAspectRatio="none"
        role="img"
        aria-label={`Calls per minute over the last hour: ${calls} calls, ${errors} failed; at most ${most} in one minute`}
        data-testid="calls-chart"
      >
        {minutes.map((m, i) => {
          if (m.calls === 0) return null;
          const h = (m.calls / most) * HEIGHT;
          const e = (m.errors / most) * HEIGHT;
          const x = i * width + BAR_GAP / 2;
          const w = Math.max(1, width - BAR_GAP);
          return (
            <g key={m.at}>
              <rect className="bar-ok" x={x} y={HEIGHT - h} width={w} height={h - e}>
                <title>{`${new Date(m.at).toLocaleTimeString()}: ${m.calls} calls, ${m.errors} failed`}</title>
              </rect>
              {e > 0 ? <rect className="bar-error" x={x} y={HEIGHT - e} width={w} height={e} /> : null}
            </g>
          );
        })}
      </svg>
      <p className="chart-axis muted small" aria-hidden="true">
        <span>an hour ago</span>
        <span>now</span>
      </p>
    </figure>
  );
}

/** p50 and p99 latency per minute (minutes without calls leave a gap). */
export function LatencyChart({ minutes }: { minutes: readonly ActivityMinute[] }) {
  const most = Math.max(0.001, ...minutes.map((m) => m.p99Ms ?? 0));
  const step = WIDTH / Math.max(1, minutes.length);
  const path = (pick: (m: ActivityMinute) => number | null) => {
    let d = '';
    let open = false;
    minutes.forEach((m, i) => {
      const v = pick(m);
      if (v === null) {
        open = false;
        return;
      }
      const x = i * step + step / 2;
      const y = HEIGHT - (v / most) * (HEIGHT - 4) - 2;
      d += `${open ? 'L' : 'M'}${x.toFixed(1)},${y.toFixed(1)} `;
      open = true;
    });
    return d.trim();
  };
  const dots = (pick: (m: ActivityMinute) => number | null, className: string) =>
    minutes.map((m, i) => {
      const v = pick(m);
      if (v === null) return null;
      return (
        <circle
          key={`${className}-${m.at}`}
          className={className}
          cx={i * step + step / 2}
          cy={HEIGHT - (v / most) * (HEIGHT - 4) - 2}
          r={2}
        />
      );
    });
  return (
    <figure className="chart">
      <figcaption>
        Latency per minute: <span className="legend-p50">p50</span> and{' '}
        <span className="legend-p99">p99</span> <span className="muted">(highest: {formatMs(most)})</span>
      </figcaption>
      <svg
        viewBox={`0 0 ${WIDTH} ${HEIGHT}`}
        preserveAspectRatio="none"
        role="img"
        aria-label={`Latency per minute over the last hour, highest p99 ${formatMs(most)}`}
        data-testid="latency-chart"
      >
        <path className="line-p99" d={path((m) => m.p99Ms)} />
        <path className="line-p50" d={path((m) => m.p50Ms)} />
        {dots((m) => m.p99Ms, 'dot-p99')}
        {dots((m) => m.p50Ms, 'dot-p50')}
      </svg>
    </figure>
  );
}

/** Per tool or per editor: the figures, with a bar for each one's share of the calls. */
export function BreakdownTable({
  title,
  rows,
  testId,
}: {
  title: string;
  rows: readonly NamedCallStats[];
  testId: string;
}) {
  const most = Math.max(1, ...rows.map((r) => r.calls));
  return (
    <table className="breakdown" data-testid={testId}>
      <caption>{title}</caption>
      <thead>
        <tr>
          <th scope="col">Name</th>
          <th scope="col">Calls</th>
          <th scope="col">Errors</th>
          <th scope="col">p50</th>
          <th scope="col">p99</th>
        </tr>
      </thead>
      <tbody>
        {rows.map((r) => (
          <tr key={r.name}>
            <th scope="row" className="mono">
              {r.name}
            </th>
            <td>
              <span className="share" aria-hidden="true">
                <span style={{ width: `${(r.calls / most) * 100}%` }} />
              </span>
              {r.calls}
            </td>
            <td className={r.errors > 0 ? 'danger-text' : undefined}>{r.errors}</td>
            <td>{formatMs(r.p50Ms)}</td>
            <td>{formatMs(r.p99Ms)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** The server's last hour: totals, the two charts, and the breakdowns by tool and by editor. */
export function ActivitySummary({ activity }: { activity: ServerActivity }) {
  return (
    <div className="activity" data-testid="activity">
      <dl className="facts">
        <div>
          <dt>Calls (last hour)</dt>
          <dd data-testid="activity-calls">{activity.calls}</dd>
        </div>
        <div>
          <dt>Errors</dt>
          <dd className={activity.errors > 0 ? 'danger-text' : undefined} data-testid="activity-errors">
            {activity.errors}
          </dd>
        </div>
        <div>
          <dt>p50</dt>
          <dd>{formatMs(activity.p50Ms)}</dd>
        </div>
        <div>
          <dt>p99</dt>
          <dd>{formatMs(activity.p99Ms)}</dd>
        </div>
      </dl>
      <div className="charts">
        <CallsChart minutes={activity.minutes} />
        <LatencyChart minutes={activity.minutes} />
      </div>
      <div className="breakdowns">
        <BreakdownTable title="By tool" rows={activity.tools} testId="activity-tools" />
        <BreakdownTable title="By editor" rows={activity.editors} testId="activity-editors" />
      </div>
    </div>
  );
}
