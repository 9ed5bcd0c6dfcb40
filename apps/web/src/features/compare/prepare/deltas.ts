// The percentile table of a comparison: each run's value of each metric and its difference
// from the baseline (absolute and relative), and whether that difference is better or worse.
import type { PercentileDifferenceAnswer, Propagation } from '@meshbench/schema';
import {
  formatCount,
  formatDuration,
  formatDurationDelta,
  formatDurationMs,
  formatPercent,
  NO_VALUE,
} from '../../../charts/prepare/format.ts';
import {
  type Accuracy,
  certaintyOf,
  type MarkedPercentile,
  markDerived,
  markMsPercentile,
} from '../../../charts/prepare/percentile-accuracy.ts';

export type Better = 'lower' | 'higher';
export type Verdict = 'better' | 'worse' | 'same';

export interface Delta {
  /** value - baseline, in the metric's unit (ms, proxies, or a fraction for shares). */
  abs: number;
  /** (value - baseline) / baseline, as a fraction; null when the baseline is 0. */
  rel: number | null;
  verdict: Verdict;
}

/** Null when either side has no value. Equal values are "same", whatever the direction. */
export function delta(
  baseline: number | null | undefined,
  value: number | null | undefined,
  better: Better,
): Delta | null {
  if (baseline === null || baseline === undefined || value === null || value === undefined)
    return null;
  if (!Number.isFinite(baseline) || !Number.isFinite(value)) return null;
  const abs = value - baseline;
  const rel = baseline === 0 ? null : abs / Math.abs(baseline);
  const verdict: Verdict =
    abs === 0 ? 'same' : abs < 0 === (better === 'lower') ? 'better' : 'worse';
  return { abs, rel, verdict };
}

export type MetricUnit = 'ms' | 'share' | 'count';

export interface Metric {
  /** Stable, for test ids: "within", "p99-9", "mean". */
  key: string;
  label: string;
  unit: MetricUnit;
  better: Better;
  value: (p: Propagation) => number | null | undefined;
  /** Percentiles: how the value was obtained (exact, or an estimate and its bound). */
  accuracy?: (p: Propagation) => Accuracy | undefined;
}

const pKey = (p: number) => `p${String(p).replace('.', '-')}`;

/** The percentile a row is of (its key, p99-9 -> 99.9); null for the rows of other kinds. */
const percentileOfKey = (key: string): number | null =>
  /^p\d/.test(key) ? Number(key.slice(1).replace('-', '.')) : null;

/**
 * The rows: the share within the threshold (the benchmarks' headline), the percentiles the
 * summaries carry (those of the baseline, in its order), mean, max, and the proxies that
 * never applied the change.
 */
export function comparisonMetrics(baseline: Propagation): Metric[] {
  return [
    {
      key: 'within',
      label: `Within ${formatDuration(baseline.withinMs)}`,
      unit: 'share',
      better: 'higher',
      value: (p) => p.withinFraction,
    },
    ...baseline.percentiles.map(
      (x): Metric => ({
        key: pKey(x.p),
        label: `P${x.p}`,
        unit: 'ms',
        better: 'lower',
        value: (p) => p.percentiles.find((y) => y.p === x.p)?.ms,
        accuracy: (p) => p.percentiles.find((y) => y.p === x.p),
      }),
    ),
    { key: 'mean', label: 'Mean', unit: 'ms', better: 'lower', value: (p) => p.meanMs },
    { key: 'max', label: 'Max', unit: 'ms', better: 'lower', value: (p) => p.maxMs },
    {
      key: 'missing',
      label: 'Never applied',
      unit: 'count',
      better: 'lower',
      value: (p) => p.missing,
    },
  ];
}

export interface DeltaCell {
  value: string;
  /** Percentile rows: the value with its mark and bound (see percentile-accuracy.ts). */
  marked: MarkedPercentile | null;
  /** "+124.5 ms", "-1.2 pp", "+18"; "" for the baseline; "~" first when from an estimate. */
  abs: string;
  /** "+5.2 %"; "" for the baseline; the no-value dash when the baseline is 0. */
  rel: string;
  /** The difference involves an estimate (this run's value or the baseline's). */
  fromEstimate: boolean;
  /** The colour of `abs`: "same" when it reads zero as shown (see shownVerdict). */
  verdict: Verdict | null;
  /** The colour of `rel`, by the same rule. */
  relVerdict: Verdict | null;
  /** Why a percentile's difference is or is not significant: its interval, as the API says it. */
  why?: string;
}

export interface DeltaRow {
  metric: Pick<Metric, 'key' | 'label' | 'unit' | 'better'>;
  /** One per run, the baseline first. */
  cells: DeltaCell[];
}

const oneDecimal = new Intl.NumberFormat('en-US', {
  minimumFractionDigits: 1,
  maximumFractionDigits: 1,
});

const sign = (n: number) => (n > 0 ? '+' : '');

/** A relative difference: 0.052 -> "+5.2 %", -0.5 -> "-50.0 %". */
export function formatRelative(rel: number | null): string {
  if (rel === null) return NO_VALUE;
  const text = oneDecimal.format(rel * 100);
  return /^-?0\.0$/.test(text) ? '±0.0 %' : `${sign(rel)}${text} %`;
}

/** An absolute difference in the metric's unit: "+124.5 ms", "-1.2 pp", "+18", "±0". */
export function formatAbsolute(abs: number, unit: MetricUnit): string {
  if (abs === 0) return '±0';
  if (unit === 'share') {
    const text = oneDecimal.format(abs * 100);
    return /^-?0\.0$/.test(text) ? '±0.0 pp' : `${sign(abs)}${text} pp`;
  }
  if (unit === 'count') return `${sign(abs)}${formatCount(abs)}`;
  return formatDurationDelta(abs);
}

export function formatMetric(v: number | null | undefined, unit: MetricUnit): string {
  if (unit === 'share') return formatPercent(v);
  if (unit === 'count') return formatCount(v);
  return formatDurationMs(v);
}

/**
 * A difference's colour follows the difference as shown, not the raw one: a text with no
 * non-zero digit ("±0.0 pp", "+0.000 pp", "±0", the no-value dash) is "same", however far
 * from zero the raw value was.
 */
export function shownVerdict(verdict: Verdict, shown: string): Verdict {
  return /[1-9]/.test(shown) ? verdict : 'same';
}

/** A compared run's cell without a difference: the baseline's (blank) or one with no value. */
export function cellWithoutDelta(
  value: string,
  marked: MarkedPercentile | null,
  baseline: boolean,
): DeltaCell {
  const text = baseline ? '' : NO_VALUE;
  return {
    value,
    marked,
    abs: text,
    rel: text,
    fromEstimate: false,
    verdict: null,
    relVerdict: null,
  };
}

/**
 * Where the true value of a percentile lies, by what the API says of it: an exact value is
 * itself; an estimate its stated bound ([lower, upper], ± relativeError, ± clockErrorMs);
 * null when nothing bounds it (an estimate "as reported", or no accuracy given).
 */
export function boundsOf(
  ms: number | null | undefined,
  a: Accuracy | null | undefined,
): [number, number] | null {
  if (ms === null || ms === undefined || !Number.isFinite(ms)) return null;
  const certainty = certaintyOf(a);
  if (certainty === 'exact') return [ms, ms];
  if (certainty === 'unknown' || !a) return null;
  if (a.lower !== undefined || a.upper !== undefined)
    return [a.lower ?? Number.NEGATIVE_INFINITY, a.upper ?? Number.POSITIVE_INFINITY];
  if (a.relativeError !== undefined) {
    const e = Math.abs(a.relativeError) * Math.abs(ms);
    return [ms - e, ms + e];
  }
  if (a.clockErrorMs !== undefined) return [ms - a.clockErrorMs, ms + a.clockErrorMs];
  return null;
}

/**
 * A difference between two estimates is coloured only when it cannot be the estimators':
 * both are bounded and the bounds do not meet ("+0.001 ms" between two estimates whose
 * bounds overlap is neutral).
 */
export function beyondBounds(a: [number, number] | null, b: [number, number] | null): boolean {
  if (!a || !b) return false;
  return a[1] < b[0] || b[1] < a[0];
}

/**
 * Whether a percentile's difference is coloured: when the API's bootstrap interval of it
 * (GET /compare/significance, the gates' own) excludes zero; where there is none (no raw
 * latencies, or not read yet), when the values' stated bounds do not meet. Two exact values
 * without an interval are neutral: a difference is not shown as one until it is known to be.
 */
export function percentileSignificant(
  interval: PercentileDifferenceAnswer | undefined,
  base: [number, number] | null,
  value: [number, number] | null,
): boolean {
  if (interval && interval.verdict !== 'not-comparable')
    return interval.verdict === 'regressed' || interval.verdict === 'improved';
  if (base && value && base[0] === base[1] && value[0] === value[1]) return false;
  return beyondBounds(base, value);
}

/** 1.96: the standard normal's 97.5 % point, for a central 95 % interval. */
const Z95 = 1.959963984540054;

/**
 * Whether two shares (`k` of `n` each: proxies within the threshold of those expected) differ
 * beyond their sampling: the 95 % interval of the difference, the bootstrap's normal
 * approximation (each share's resampled spread sqrt(p(1 - p)/n)), excludes zero. A share of
 * 0 or 1 has no spread, as its bootstrap has none.
 */
export function sharesDiffer(k1: number, n1: number, k2: number, n2: number): boolean {
  if (n1 <= 0 || n2 <= 0) return false;
  const p1 = k1 / n1;
  const p2 = k2 / n2;
  if (p1 === p2) return false;
  const se = Math.sqrt((p1 * (1 - p1)) / n1 + (p2 * (1 - p2)) / n2);
  return Math.abs(p2 - p1) > Z95 * se;
}

/** A summary's share within the threshold as counts: within of expected (of observed). */
export function withinCounts(p: Propagation): { k: number; n: number } | null {
  const n = p.expected ?? p.count;
  if (p.withinFraction === null || p.withinFraction === undefined || !n) return null;
  return { k: Math.round(p.withinFraction * n), n };
}

/** A compared run's cell with its difference from the baseline, as shown and coloured. */
export function cellWithDelta(
  value: string,
  marked: MarkedPercentile | null,
  d: Delta,
  shown: { abs: string; rel: string },
  fromEstimate: boolean,
  significant = true,
): DeltaCell {
  return {
    value,
    marked,
    abs: markDerived(shown.abs, fromEstimate),
    rel: markDerived(shown.rel, fromEstimate),
    fromEstimate,
    verdict: significant ? shownVerdict(d.verdict, shown.abs) : 'same',
    relVerdict: significant ? shownVerdict(d.verdict, shown.rel) : 'same',
  };
}

/** A count's change as counts: "1 → 3", never "+200 %" of a handful of proxies. */
export const formatCountChange = (from: number, to: number) =>
  `${formatCount(from)} → ${formatCount(to)}`;

/**
 * The table: summaries[0] is the baseline; a run without this change has a null summary.
 * `intervals`, per run (the baseline's empty), the API's percentile differences with their
 * bootstrap intervals: what colours a percentile's difference (percentileSignificant). Mean
 * and max have none and stay neutral; a share within the threshold is coloured when the two
 * shares differ beyond their sampling (sharesDiffer); a count of proxies as counts.
 */
export function deltaRows(
  summaries: (Propagation | null)[],
  intervals: (readonly PercentileDifferenceAnswer[] | undefined)[] = [],
): DeltaRow[] {
  const baseline = summaries[0];
  if (!baseline) return [];
  return comparisonMetrics(baseline).map((metric) => {
    const base = metric.value(baseline);
    const baseAccuracy = metric.accuracy?.(baseline);
    const cells = summaries.map((s, i): DeltaCell => {
      const v = s ? metric.value(s) : null;
      const value = formatMetric(v, metric.unit);
      const accuracy = s ? metric.accuracy?.(s) : undefined;
      const marked = metric.accuracy ? markMsPercentile(v, accuracy) : null;
      const d = i === 0 ? null : delta(base, v, metric.better);
      if (!d) return cellWithoutDelta(value, marked, i === 0);
      const fromEstimate =
        certaintyOf(accuracy) === 'estimate' || certaintyOf(baseAccuracy) === 'estimate';
      const shown = {
        abs: formatAbsolute(d.abs, metric.unit),
        rel:
          metric.unit === 'count'
            ? formatCountChange(base as number, v as number)
            : formatRelative(d.rel),
      };
      const significant = significanceOf(metric, baseline, s as Propagation, intervals[i], {
        base: boundsOf(base, baseAccuracy),
        value: boundsOf(v, accuracy),
      });
      const cell = cellWithDelta(value, marked, d, shown, fromEstimate, significant);
      const p = percentileOfKey(metric.key);
      const interval = p === null ? undefined : intervals[i]?.find((x) => x.p === p);
      return interval ? { ...cell, why: interval.reason } : cell;
    });
    const { key, label, unit, better } = metric;
    return { metric: { key, label, unit, better }, cells };
  });
}

/** Whether one run's difference in a row is coloured (see deltaRows). */
function significanceOf(
  metric: Metric,
  baseline: Propagation,
  summary: Propagation,
  intervals: readonly PercentileDifferenceAnswer[] | undefined,
  bounds: { base: [number, number] | null; value: [number, number] | null },
): boolean {
  const p = percentileOfKey(metric.key);
  if (p !== null) {
    const interval = intervals?.find((x) => x.p === p);
    return percentileSignificant(interval, bounds.base, bounds.value);
  }
  if (metric.key === 'within') {
    const a = withinCounts(baseline);
    const b = withinCounts(summary);
    return a !== null && b !== null && sharesDiffer(a.k, a.n, b.k, b.n);
  }
  return metric.unit === 'count';
}
