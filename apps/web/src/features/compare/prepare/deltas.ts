// The percentile table of a comparison: each run's value of each metric and its difference
// from the baseline (absolute and relative), and whether that difference is better or worse.
import type { Propagation } from '@meshbench/schema';
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
 * A difference between two percentiles is coloured only when it cannot be the estimators':
 * both are bounded and the bounds do not meet. Two exact values always differ as shown (the
 * bootstrap interval of the gates needs the raw latencies, which the compare page does not
 * read); "+0.001 ms" between two estimates whose bounds overlap is neutral.
 */
export function beyondBounds(a: [number, number] | null, b: [number, number] | null): boolean {
  if (!a || !b) return false;
  return a[1] < b[0] || b[1] < a[0];
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

/** The table: summaries[0] is the baseline; a run without this change has a null summary. */
export function deltaRows(summaries: (Propagation | null)[]): DeltaRow[] {
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
      const significant = metric.accuracy
        ? beyondBounds(boundsOf(base, baseAccuracy), boundsOf(v, accuracy))
        : true;
      return cellWithDelta(value, marked, d, shown, fromEstimate, significant);
    });
    const { key, label, unit, better } = metric;
    return { metric: { key, label, unit, better }, cells };
  });
}
