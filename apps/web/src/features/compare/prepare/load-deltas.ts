// The data-plane delta table of a comparison: step by step (mode and connections, or mode and
// rate), each run's percentile and error rate and its difference from the baseline run, better
// or worse, as the propagation compare's table has it.
import { formatPercent } from '../../../charts/prepare/format.ts';
import { formatErrorRate } from '../../../charts/prepare/load-format.ts';
import { stepLabel, stepRows } from '../../../charts/prepare/load-multiples.ts';
import {
  type LoadResultsRun,
  markedPercentile,
  percentileMs,
  type SliceArg,
  toSlice,
} from '../../../charts/prepare/load-results.ts';
import { certaintyOf } from '../../../charts/prepare/percentile-accuracy.ts';
import {
  cellWithDelta,
  cellWithoutDelta,
  type DeltaCell,
  delta,
  formatAbsolute,
  formatCountChange,
  formatMetric,
  formatRelative,
  sharesDiffer,
} from './deltas.ts';

export interface LoadDeltaRow {
  key: string;
  mode: string;
  step: string;
  metric: string;
  cells: DeltaCell[];
}

/** An error rate's difference in percentage points, to three decimals: "+0.012 pp", "±0.000 pp". */
function formatRateDelta(abs: number): string {
  if (abs === 0) return '±0';
  const pp = abs * 100;
  const text = Math.abs(pp) >= 0.1 ? pp.toFixed(1) : pp.toFixed(3);
  return /^-?0\.0+$/.test(text) ? '±0.000 pp' : `${pp > 0 ? '+' : ''}${text} pp`;
}

export function loadDeltaRows(
  runs: LoadResultsRun[],
  sliceArg: SliceArg,
  percentile: number,
): LoadDeltaRow[] {
  const slice = toSlice(sliceArg);
  return stepRows(runs, slice).flatMap((row) => {
    const step = stepLabel(slice.axis, row.step);
    const base = row.points[0] ?? null;
    const latency: DeltaCell[] = row.points.map((p, i) => {
      const v = p ? percentileMs(p.result, percentile) : null;
      const marked = p
        ? markedPercentile(p.result, percentile)
        : markedPercentile({ percentiles: [] }, percentile);
      const value = formatMetric(v, 'ms');
      const b = base ? percentileMs(base.result, percentile) : null;
      const d = i === 0 ? null : delta(b, v, 'lower');
      if (!d) return cellWithoutDelta(value, marked, i === 0);
      const fromEstimate =
        marked.certainty === 'estimate' ||
        (base !== null &&
          certaintyOf(base.result.percentiles.find((x) => x.p === percentile)) === 'estimate');
      const shown = { abs: formatAbsolute(d.abs, 'ms'), rel: formatRelative(d.rel) };
      return cellWithDelta(value, marked, d, shown, fromEstimate);
    });
    const rate = (p: (typeof row.points)[number]) =>
      p && p.result.errors !== null && p.result.requests
        ? p.result.errors / p.result.requests
        : null;
    const baseRate = rate(base);
    const errors: DeltaCell[] = row.points.map((p, i) => {
      const v = rate(p);
      const value =
        v === null
          ? formatPercent(null)
          : `${formatErrorRate(v * 100)} (${(p?.result.errors ?? 0).toLocaleString('en-US')})`;
      const d = i === 0 ? null : delta(baseRate, v, 'lower');
      if (!d) return cellWithoutDelta(value, null, i === 0);
      // Errors are counts: their change as counts ("1 → 2", never "+100 %"), coloured only
      // when the two rates differ beyond their sampling (sharesDiffer).
      const before = base?.result.errors ?? 0;
      const after = p?.result.errors ?? 0;
      const shown = { abs: formatRateDelta(d.abs), rel: formatCountChange(before, after) };
      const significant = sharesDiffer(
        before,
        base?.result.requests ?? 0,
        after,
        p?.result.requests ?? 0,
      );
      return cellWithDelta(value, null, d, shown, false, significant);
    });
    const id = `${row.mode}|${row.step}`;
    return [
      { key: `${id}|p`, mode: row.mode, step, metric: `P${percentile}`, cells: latency },
      { key: `${id}|errors`, mode: row.mode, step, metric: 'Error rate', cells: errors },
    ];
  });
}
