// The data-plane delta table of a comparison: step by step (mode and connections, or mode and
// rate), each run's percentile and error rate and its difference from the baseline run, better
// or worse, as the propagation compare's table has it: coloured only when significant.
import type { HistogramBin, StoredLoadResult } from '@meshbench/schema';
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
  beyondBounds,
  boundsOf,
  cellWithDelta,
  cellWithoutDelta,
  type DeltaCell,
  delta,
  formatAbsolute,
  formatCountChange,
  formatMetric,
  formatRelative,
  percentileSignificant,
  sharesDiffer,
} from './deltas.ts';

/** 1.96: the standard normal's 97.5 % point, for a central 95 % interval. */
const Z95 = 1.959963984540054;

/**
 * Where a step's P`p` lies, at 95 %, by its histogram's bucket counts: the distribution-free
 * interval of a quantile, the order statistics at ranks n·q ± 1.96·sqrt(n·q·(1 - q)) of the n
 * recorded requests (q = p / 100; the binomial's normal approximation), each rank read as the
 * bucket that holds it: [the lower rank's bucket start, the upper rank's bucket end]. So it
 * holds both the sampling (how far another run of the same step moves the rank) and the
 * bucket's width (where in its bucket the value is). Null without a histogram.
 */
export function percentileInterval(
  bins: readonly HistogramBin[] | null | undefined,
  p: number,
): [number, number] | null {
  if (!bins || bins.length === 0) return null;
  const sorted = bins.filter((b) => b.count > 0).sort((a, b) => a.fromMs - b.fromMs);
  const n = sorted.reduce((sum, b) => sum + b.count, 0);
  if (n === 0) return null;
  const q = Math.min(Math.max(p / 100, 0), 1);
  const spread = Z95 * Math.sqrt(n * q * (1 - q));
  const low = Math.min(n, Math.max(1, Math.floor(n * q - spread)));
  const high = Math.min(n, Math.max(1, Math.ceil(n * q + spread)));
  const binOf = (rank: number) => {
    let seen = 0;
    for (const b of sorted) {
      seen += b.count;
      if (seen >= rank) return b;
    }
    return sorted[sorted.length - 1] as HistogramBin;
  };
  return [binOf(low).fromMs, binOf(high).toMs];
}

type StepPoint = { result: Pick<StoredLoadResult, 'percentiles' | 'histogram'> };

/**
 * Whether a step's percentile differs from the baseline's beyond what the two can tell: where
 * both steps keep a histogram, when their 95 % intervals (percentileInterval) do not meet;
 * elsewhere by the values' stated bounds (an HdrHistogram's or a raw file's [lower, upper]),
 * as propagation cells without a bootstrap interval: two values with no bound (a tool's
 * reported percentile) or two exact ones are neutral.
 */
export function latencyDiffers(base: StepPoint, point: StepPoint, p: number): boolean {
  const a = percentileInterval(base.result.histogram, p);
  const b = percentileInterval(point.result.histogram, p);
  if (a && b) return beyondBounds(a, b);
  const of = (x: StepPoint) => {
    const v = x.result.percentiles.find((y) => y.p === p);
    return boundsOf(v?.ms, v);
  };
  return percentileSignificant(undefined, of(base), of(point));
}

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
      const significant = base !== null && p !== null && latencyDiffers(base, p, percentile);
      return cellWithDelta(value, marked, d, shown, fromEstimate, significant);
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
