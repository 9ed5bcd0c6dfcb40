// The numbers a gate reads from a run: the propagation of one change, and the median of
// several runs for a baseline made of history.

import type { Metric, Propagation } from '@meshbench/schema';

export type Metrics = Record<Metric, number | null>;

export function metricsOf(p: Propagation): Metrics {
  const pct = (n: number) => p.percentiles.find((x) => x.p === n)?.ms ?? null;
  return {
    p50: pct(50),
    p90: pct(90),
    p95: pct(95),
    p96: pct(96),
    p99: pct(99),
    'p99.9': pct(99.9),
    mean: p.meanMs,
    max: p.maxMs,
    within1s: p.withinFraction === null ? null : p.withinFraction * 100,
    missing: p.missing,
  };
}

/** Each metric's median over the runs that have it (the mean of the middle two when even). */
export function medianMetrics(all: Metrics[]): Metrics {
  const out = {} as Metrics;
  const keys = Object.keys(all[0] ?? {}) as Metric[];
  for (const key of keys) {
    const values = all
      .map((m) => m[key])
      .filter((v): v is number => v !== null)
      .sort((a, b) => a - b);
    if (values.length === 0) {
      out[key] = null;
      continue;
    }
    const mid = values.length >> 1;
    out[key] =
      values.length % 2
        ? (values[mid] as number)
        : ((values[mid - 1] as number) + (values[mid] as number)) / 2;
  }
  return out;
}
