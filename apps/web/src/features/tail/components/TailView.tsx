// Why a change's slowest proxies were slow, drawn from a tail already in hand: the tail at a
// threshold, by cause (chart and table), and the drill-down to the slowest proxies with the
// incident that explains each. A view: TailPanel fetches the tail for the threshold picked.
import { type Change, type Tail, UNEXPLAINED_CAUSE } from '@meshbench/schema';
import { type ReactNode, useMemo } from 'react';
import { formatCount, formatDurationMs, formatPercent } from '../../../charts/prepare/format.ts';
import { certaintyOf } from '../../../charts/prepare/percentile-accuracy.ts';
import {
  causeColor,
  incidentWindow,
  prepareTailCauses,
  TAIL_THRESHOLDS,
  type TailThreshold,
  tailClockNote,
  tailCutNote,
  tailSummary,
} from '../../../charts/prepare/tail.ts';
import { TailCauseChart } from '../../../charts/TailCauseChart.tsx';
import { AccuracyLegend, PercentileValue } from '../../../ui/PercentileValue.tsx';
import '../tail.css';

export function TailView({
  change,
  tail,
  threshold,
  onThreshold,
  csvUrl,
  busy,
  state,
  explained,
}: {
  change: Pick<Change, 'at' | 'expected'>;
  /** Absent while the first tail loads or when it failed (`state` says which). */
  tail: Tail | undefined;
  threshold: TailThreshold;
  onThreshold: (threshold: TailThreshold) => void;
  csvUrl: string;
  busy: boolean;
  /** In place of the body while there is no tail: loading, or why not. */
  state: ReactNode;
  /** What sets the tail apart (TailAttributionView), first in the body. */
  explained?: ReactNode;
}) {
  const causes = useMemo(() => (tail ? prepareTailCauses(tail) : null), [tail]);
  return (
    <div className="panel tail-panel" data-testid="tail-panel">
      <div className="panel-head">
        <div>
          <h3>Tail causes</h3>
          <p className="panel-sub" data-testid="tail-summary">
            {tail ? tailSummary(tail, change.expected) : '\u00a0'}
          </p>
          {tail && tailClockNote(tail) && (
            <p className="panel-sub" data-testid="tail-clock" data-clock={tail.clock}>
              On {tailClockNote(tail)}
            </p>
          )}
        </div>
        <fieldset className="segmented" aria-label="tail threshold">
          {TAIL_THRESHOLDS.map((t) => (
            <button
              key={t.id}
              type="button"
              aria-pressed={threshold.id === t.id}
              title={`the tail: proxies ${t.description}`}
              data-testid={`tail-threshold-${t.id}`}
              onClick={() => onThreshold(t)}
            >
              {t.label}
            </button>
          ))}
        </fieldset>
      </div>
      {state ??
        (tail && (
          <div aria-busy={busy} className="tail-body">
            {explained}
            <CutNote tail={tail} />
            {causes ? (
              <div className="tail-grid">
                <div className="tail-chart" data-testid="tail-chart">
                  <TailCauseChart causes={causes} />
                </div>
                <CausesTable tail={tail} />
              </div>
            ) : (
              <p className="state">No proxy was {threshold.description}, and none is missing.</p>
            )}
            <div className="chart-data">
              <a href={csvUrl} download data-testid="tail-csv" className="csv-link">
                Causes as CSV
              </a>
              <span className="muted">
                Cause: the runner&apos;s, else an incident on the proxy, else on its node, that
                overlaps the change → application interval; else unexplained.
              </span>
            </div>
            {tail.slowest.length > 0 && <SlowestProxies tail={tail} changeAt={change.at} />}
          </div>
        ))}
    </div>
  );
}

function CutNote({ tail }: { tail: Tail }) {
  const note = tailCutNote(tail);
  return (
    <p
      className={note.warning ? 'tail-cut-note warning' : 'tail-cut-note muted'}
      role={note.warning ? 'note' : undefined}
      data-testid="tail-cut-note"
      data-cut-rule={tail.cutRule}
    >
      {note.text}
    </p>
  );
}

function CausesTable({ tail }: { tail: Tail }) {
  const ms = (c: Tail['causes'][number], p: number) => {
    const x = c.percentiles.find((y) => y.p === p);
    return <PercentileValue ms={x?.ms} accuracy={x} />;
  };
  return (
    <div className="table-wrap tail-table">
      <table className="data compact" data-testid="tail-causes-table">
        <thead>
          <tr>
            <th>Cause</th>
            <th className="num">Proxies</th>
            <th className="num" title="of the tail: its proxies plus those that never converged">
              Share of tail
            </th>
            <th className="num">P50</th>
            <th className="num">P90</th>
            <th className="num">P99</th>
          </tr>
        </thead>
        <tbody>
          {tail.causes.map((c) => (
            <tr key={c.cause} data-testid="tail-cause-row" data-cause={c.cause}>
              <td className="tail-cause-cell" title={c.description}>
                <span
                  className="cause-swatch"
                  style={{ background: causeColor(c.cause) }}
                  aria-hidden="true"
                />
                <span data-testid="tail-cause-name">{c.cause}</span>
                <span
                  className={c.described ? 'cause-description' : 'cause-description muted'}
                  data-testid="tail-cause-description"
                >
                  {c.description}
                </span>
              </td>
              <td className="num" data-testid="tail-cause-count">
                {formatCount(c.count)}
              </td>
              <td className="num">{formatPercent(c.share)}</td>
              <td className="num">{ms(c, 50)}</td>
              <td className="num">{ms(c, 90)}</td>
              <td className="num">{ms(c, 99)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <AccuracyLegend certainties={tail.causes.flatMap((c) => c.percentiles.map(certaintyOf))} />
    </div>
  );
}

function SlowestProxies({ tail, changeAt }: { tail: Tail; changeAt: string }) {
  return (
    <details className="tail-drilldown" data-testid="tail-drilldown">
      <summary data-testid="tail-drilldown-toggle">
        The {formatCount(tail.slowest.length)} slowest proxies, with the incident that explains each
      </summary>
      <div className="chart-data-table">
        <table className="data compact" data-testid="tail-slowest-table">
          <thead>
            <tr>
              <th>Proxy</th>
              <th>Node</th>
              <th className="num">Time to apply</th>
              <th>Cause</th>
              <th>Incident</th>
              <th>Incident window (from the change)</th>
            </tr>
          </thead>
          <tbody>
            {tail.slowest.map((s) => (
              <tr key={s.proxy} data-testid="tail-slowest-row">
                <td className="mono">{s.proxy}</td>
                <td className="mono">{s.node ?? '—'}</td>
                <td className="num">{formatDurationMs(s.ms)}</td>
                <td>
                  <span
                    className="cause-swatch"
                    style={{ background: causeColor(s.cause) }}
                    aria-hidden="true"
                  />
                  {s.cause}
                </td>
                <td className={s.incident ? undefined : 'muted'}>
                  {s.incident
                    ? `${s.incident.kind} on ${s.incident.proxy ? 'the proxy' : 'its node'}`
                    : s.cause === UNEXPLAINED_CAUSE
                      ? 'none overlapping'
                      : 'the cause the probe reported'}
                </td>
                <td
                  className="nowrap"
                  title={
                    s.incident ? `${s.incident.from} – ${s.incident.to ?? 'still open'}` : undefined
                  }
                >
                  {s.incident ? (incidentWindow(s.incident, changeAt) ?? '—') : '—'}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </details>
  );
}
