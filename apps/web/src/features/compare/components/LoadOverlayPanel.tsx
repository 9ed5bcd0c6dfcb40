// Data-plane results compared: one small chart per mode with a line per run (in its mesh's
// colour, a second run of a mesh in a shade of it), latency and error rate, and the delta
// table behind them. Shown only when a run has load results. The view is in the page's URL.
import type { StoredLoadResult } from '@meshbench/schema';
import { useMemo } from 'react';
import { durationTickFormatter } from '../../../charts/prepare/duration.ts';
import { formatMs } from '../../../charts/prepare/format.ts';
import { formatErrorRate, formatErrorRateTick } from '../../../charts/prepare/load-format.ts';
import { prepareModeMultiples } from '../../../charts/prepare/load-multiples.ts';
import {
  defaultAxis,
  type LoadResultsRun,
  percentileMs,
  settleSlice,
  valueAxis,
} from '../../../charts/prepare/load-results.ts';
import { atSlice, xAxisOf } from '../../load-results/components/panel-props.ts';
import { SeriesKey } from '../../load-results/components/SeriesKey.tsx';
import { LoadControls, useLoadView } from '../../load-results/index.ts';
import type { ComparedRun } from '../prepare/compared-runs.ts';
import { loadDeltaRows } from '../prepare/load-deltas.ts';
import { LoadDeltaTable } from './LoadDeltaTable.tsx';
import { ModeMultiples } from './ModeMultiples.tsx';

export function LoadOverlayPanel({
  runs,
  results,
}: {
  runs: ComparedRun[];
  /** One per run: undefined while it loads. */
  results: (StoredLoadResult[] | undefined)[];
}) {
  const [view, setView] = useLoadView();
  const withResults = useMemo(
    () => runs.filter((_, i) => (results[i]?.length ?? 0) > 0),
    [runs, results],
  );
  const data = useMemo<(LoadResultsRun & { dash?: string | undefined })[]>(
    () =>
      runs.flatMap((r, i) => {
        const points = results[i];
        return points && points.length > 0
          ? [{ label: r.label, color: r.style.color, dash: r.style.dash, results: points }]
          : [];
      }),
    [runs, results],
  );
  const axis = useMemo(() => view.axis ?? defaultAxis(data), [view.axis, data]);
  const { slice, groups, label } = useMemo(
    () => settleSlice(data, axis, axis === 'connections' ? view.rate : view.connections),
    [data, axis, view.rate, view.connections],
  );
  const latency = useMemo(
    () => prepareModeMultiples(data, slice, (r) => percentileMs(r, view.percentile)),
    [data, slice, view.percentile],
  );
  const errors = useMemo(
    () =>
      prepareModeMultiples(
        data,
        slice,
        (r) => (r.errors !== null && r.requests ? (r.errors / r.requests) * 100 : null),
        (v) => valueAxis(v, 4),
      ),
    [data, slice],
  );
  const deltas = useMemo(
    () => loadDeltaRows(data, slice, view.percentile),
    [data, slice, view.percentile],
  );
  if (data.length === 0) return null;
  const without = runs.filter((_, i) => results[i]?.length === 0).map((r) => r.label);
  const x = xAxisOf(axis);
  return (
    <section className="compare-section" data-testid="load-overlay" data-axis={axis}>
      <div className="section-head">
        <div>
          <h2>Data plane</h2>
          <p className="muted">
            Load test points of {data.map((d) => d.label).join(', ')}: one chart per mode
            {without.length > 0 && ` (${without.join(', ')}: none)`}
          </p>
        </div>
      </div>
      <LoadControls view={view} axis={axis} slice={slice} groups={groups} onChange={setView} />
      <SeriesKey series={latency.series} />
      <div className="panel load-compare-panel" data-testid="load-compare-latency">
        <h3>
          P{view.percentile} latency vs {axis === 'connections' ? 'connections' : 'RPS'}
        </h3>
        <p className="panel-sub">{atSlice(label)}, same axes in every mode</p>
        <ModeMultiples
          testId="latency-multiples"
          multiples={latency.multiples}
          {...x}
          formatY={formatMs}
          formatYTick={durationTickFormatter(
            latency.multiples.find((m) => m.lines)?.lines?.y.ticks ?? [],
          )}
        />
      </div>
      <div className="panel load-compare-panel" data-testid="load-compare-errors">
        <h3>Error rate</h3>
        <p className="panel-sub">{atSlice(label)}: % of requests that failed</p>
        <ModeMultiples
          testId="error-multiples"
          multiples={errors.multiples}
          {...x}
          formatY={formatErrorRate}
          formatYTick={formatErrorRateTick}
          yWidth={64}
        />
      </div>
      <LoadDeltaTable runs={withResults} rows={deltas} />
    </section>
  );
}
