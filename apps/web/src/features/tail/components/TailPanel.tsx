// Why a change's slowest proxies were slow: the tail at a threshold, by cause (chart and
// table), and the drill-down to the slowest proxies with the incident that explains each.
import { type Change, type Tail, UNEXPLAINED_CAUSE } from '@meshbench/schema';
import { useMemo, useState } from 'react';
import { changeTailUrl } from '../../../api/urls.ts';
import { formatCount, formatMsValue, formatPercent } from '../../../charts/prepare/format.ts';
import { certaintyOf } from '../../../charts/prepare/percentile-accuracy.ts';
import {
  causeColor,
  DEFAULT_TAIL_THRESHOLD,
  incidentWindow,
  prepareTailCauses,
  TAIL_THRESHOLDS,
  type TailThreshold,
  tailSummary,
} from '../../../charts/prepare/tail.ts';
import { TailCauseChart } from '../../../charts/TailCauseChart.tsx';
import { AccuracyLegend, PercentileValue } from '../../../ui/PercentileValue.tsx';
import { ErrorMessage, Loading } from '../../../ui/QueryState.tsx';
import { tailParams, useTail } from '../hooks/use-tail.ts';
import '../tail.css';

export function TailPanel({ runId, change }: { runId: string; change: Change }) {
  const [threshold, setThreshold] = useState<TailThreshold>(DEFAULT_TAIL_THRESHOLD);
  const query = useTail(runId, change.id, threshold);
  const causes = useMemo(() => (query.data ? prepareTailCauses(query.data) : null), [query.data]);
  const csvUrl = changeTailUrl(runId, change.id, { ...tailParams(threshold), format: 'csv' });
  return (
    <div className="panel tail-panel" data-testid="tail-panel">
      <div className="panel-head">
        <div>
          <h3>Tail causes</h3>
          <p className="panel-sub" data-testid="tail-summary">
            {query.data ? tailSummary(query.data, change.expected) : '\u00a0'}
          </p>
        </div>
        <fieldset className="segmented" aria-label="tail threshold">
          {TAIL_THRESHOLDS.map((t) => (
            <button
              key={t.id}
              type="button"
              aria-pressed={threshold.id === t.id}
              title={`the tail: proxies ${t.description}`}
              data-testid={`tail-threshold-${t.id}`}
              onClick={() => setThreshold(t)}
            >
              {t.label}
            </button>
          ))}
        </fieldset>
      </div>
      {query.isPending ? (
        <Loading what="the tail" />
      ) : query.isError ? (
        <ErrorMessage error={query.error} what="the tail" />
      ) : (
        <div aria-busy={query.isFetching} className="tail-body">
          {causes ? (
            <div className="tail-grid">
              <div className="tail-chart" data-testid="tail-chart">
                <TailCauseChart causes={causes} />
              </div>
              <CausesTable tail={query.data} />
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
          {query.data.slowest.length > 0 && (
            <SlowestProxies tail={query.data} changeAt={change.at} />
          )}
        </div>
      )}
    </div>
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
            <th className="num">Share</th>
            <th className="num">P50 (ms)</th>
            <th className="num">P90 (ms)</th>
            <th className="num">P99 (ms)</th>
          </tr>
        </thead>
        <tbody>
          {tail.causes.map((c) => (
            <tr key={c.cause} data-testid="tail-cause-row" data-cause={c.cause}>
              <td>
                <span
                  className="cause-swatch"
                  style={{ background: causeColor(c.cause) }}
                  aria-hidden="true"
                />
                <span data-testid="tail-cause-name">{c.cause}</span>
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
              <th className="num">Time to apply (ms)</th>
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
                <td className="num">{formatMsValue(s.ms)}</td>
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
