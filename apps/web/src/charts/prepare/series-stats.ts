// The distributions of a run's metric series (timers, histograms, summaries) as a table:
// count, min, the percentiles the API gives (each with its mark and bound) and max, in the
// series' own unit.
import type { Series } from '@meshbench/schema';
import { formatDurationMs } from './duration.ts';
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
  /**
   * Set when the figures may include values recorded before the run started: "may include
   * up to 4.2 s before the run" (a cumulative stream counted from its start_time or from its
   * point before the run, or a first interval straddling the start).
   */
  beforeRun: string | null;
  /**
   * The run's min and max; where the API cannot know them (a cumulative stream begun before
   * the run), the stream's as a bound, "≥ 10 µs" and "≤ 5 s", with `bound` saying so.
   */
  min: string;
  max: string;
  minBound: string | null;
  maxBound: string | null;
  /** One per column of `percentiles`, null where this series has no such percentile. */
  percentiles: (MarkedPercentile | null)[];
}

export interface SeriesStatsTable {
  /** The columns: every percentile any row has, ascending. */
  percentiles: number[];
  rows: SeriesStatsRow[];
  certainties: Certainty[];
  /** Whether any row's min or max is only the stream's bound, or any row counts from before the run. */
  bounded: boolean;
  beforeRun: boolean;
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
    const { streamMin, streamMax, beforeRunMs } = s.stats;
    const minBound = s.stats.min === null && streamMin !== undefined ? format(streamMin) : null;
    const maxBound = s.stats.max === null && streamMax !== undefined ? format(streamMax) : null;
    return {
      id: s.id,
      name: s.name,
      tags: tagText(s.tags),
      source: s.source,
      kind: s.kind,
      count: formatCount(s.stats.count),
      beforeRun:
        beforeRunMs !== undefined && beforeRunMs > 0
          ? `may include values recorded up to ${formatDurationMs(beforeRunMs)} before the run started`
          : null,
      min: minBound !== null ? `≥ ${minBound}` : format(s.stats.min),
      max: maxBound !== null ? `≤ ${maxBound}` : format(s.stats.max),
      minBound:
        minBound !== null
          ? `the run's min is not known: at least ${minBound}, the stream's min since its start`
          : null,
      maxBound:
        maxBound !== null
          ? `the run's max is not known: at most ${maxBound}, the stream's max since its start`
          : null,
      percentiles: percentiles.map((p) => {
        const x = s.stats.percentiles?.find((y) => y.p === p);
        if (!x) return null;
        const marked = markPercentile(x.value, x, format, (n) => format(n));
        certainties.push(marked.certainty);
        return marked;
      }),
    };
  });
  return {
    percentiles,
    rows,
    certainties,
    bounded: rows.some((r) => r.minBound !== null || r.maxBound !== null),
    beforeRun: rows.some((r) => r.beforeRun !== null),
  };
}
