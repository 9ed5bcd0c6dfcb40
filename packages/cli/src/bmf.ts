// A run's propagation numbers in Bencher Metric Format (BMF), for teams that also track
// their benchmarks with Bencher (https://bencher.dev/docs/reference/bencher-metric-format):
// { "<benchmark>": { "<measure>": { "value": n, "lower_value"?: n, "upper_value"?: n } } }.
// A benchmark per change of the run ("benchmark/scenario/mesh@version/change"); measures
// in milliseconds (a Measure's slug is at most 64 characters), exact nearest-rank values
// bare, clock-corrected ones with their bounds as lower and upper values.
import type { Propagation, Run } from '@meshbench/schema';

export interface BmfMetric {
  value: number;
  lower_value?: number;
  upper_value?: number;
}
export type Bmf = Record<string, Record<string, BmfMetric>>;

const PERCENTILES = [50, 90, 96, 99, 99.9];
const slug = (p: number) => `p${String(p).replace('.', '_')}`;

export function runBmf(run: Run, changes: { id: string; propagation: Propagation }[]): Bmf {
  const mesh = run.mesh.version ? `${run.mesh.name}@${run.mesh.version}` : run.mesh.name;
  const out: Bmf = {};
  for (const { id, propagation: p } of changes) {
    const measures: Record<string, BmfMetric> = {};
    for (const pct of PERCENTILES) {
      const v = p.percentiles.find((x) => x.p === pct);
      if (v) measures[`propagation-${slug(pct)}-ms`] = { value: v.ms };
    }
    if (p.maxMs !== null) measures['propagation-max-ms'] = { value: p.maxMs };
    if (p.withinFraction !== null)
      measures[`within-${p.withinMs}ms-pct`] = { value: p.withinFraction * 100 };
    if (p.missing !== null) measures['missing-proxies'] = { value: p.missing };
    for (const v of p.clock?.corrected?.percentiles ?? []) {
      if (!PERCENTILES.includes(v.p)) continue;
      measures[`propagation-${slug(v.p)}-ms-clock-corrected`] = {
        value: v.ms,
        ...(typeof v.lower === 'number' ? { lower_value: v.lower } : {}),
        ...(typeof v.upper === 'number' ? { upper_value: v.upper } : {}),
      };
    }
    out[`${run.benchmark}/${run.scenario}/${mesh}/${id}`] = measures;
  }
  return out;
}
