// The distributions of a run's metric series (timers, histograms, summaries) as a table:
// count, min, the percentiles the API gives (each with its mark and bound) and max, in the
// series' own unit.
import type { Series } from '@meshbench/schema';
import { formatCount } from './format.ts';
import { type Certainty, type MarkedPercentile, markPercentile } from './percentile-accuracy.ts';
import { formatValue } from './timeline.ts';

export interface SeriesStatsRow {
  id: string;
  name: string;
  /** "server=consul-server-1, dc=dc1" (the SDK's scope attributes left out). */
  tags: string;
  source: Series['source'];
  kind: Series['kind'];
  count: string;
  min: string;
  max: string;
  /** One per column of `percentiles`, null where this series has no such percentile. */
  percentiles: (MarkedPercentile | null)[];
}

export interface SeriesStatsTable {
  /** The columns: every percentile any row has, ascending. */
  percentiles: number[];
  rows: SeriesStatsRow[];
  certainties: Certainty[];
}

export function tagText(tags: Record<string, string>): string {
  return Object.entries(tags)
    .filter(([k]) => !k.startsWith('otel.scope'))
    .map(([k, v]) => `${k}=${v}`)
    .join(', ');
}

/** "P50", "P99.9". */
export const percentileLabel = (p: number) => `P${Number(p.toPrecision(6))}`;

/**
 * The series that have percentiles, by name. Bounds are written in the series' unit at the
 * precision its values are shown with.
 */
export function prepareSeriesStats(series: Series[]): SeriesStatsTable {
  const withPercentiles = series
    .filter((s) => (s.stats.percentiles?.length ?? 0) > 0)
    .sort((a, b) => a.name.localeCompare(b.name) || tagText(a.tags).localeCompare(tagText(b.tags)));
  const percentiles = [
    ...new Set(withPercentiles.flatMap((s) => (s.stats.percentiles ?? []).map((x) => x.p))),
  ].sort((a, b) => a - b);
  const certainties: Certainty[] = [];
  const rows = withPercentiles.map((s): SeriesStatsRow => {
    const format = (v: number | null | undefined) => formatValue(v, s.unit);
    return {
      id: s.id,
      name: s.name,
      tags: tagText(s.tags),
      source: s.source,
      kind: s.kind,
      count: formatCount(s.stats.count),
      min: format(s.stats.min),
      max: format(s.stats.max),
      percentiles: percentiles.map((p) => {
        const x = s.stats.percentiles?.find((y) => y.p === p);
        if (!x) return null;
        const marked = markPercentile(x.value, x, format, (n) => format(n));
        certainties.push(marked.certainty);
        return marked;
      }),
    };
  });
  return { percentiles, rows, certainties };
}
