// The one read of a run's series rows, for every reader of series (metrics: stats and
// points; timeline: buckets and levels; history: the control plane's CPU): the light columns
// for every series, the heavy ones (sketches, set members, summary quantiles) only for the
// kinds the reader needs them of, both reads at once.
import type { SeriesKind } from '@meshbench/schema';
import type { StoredRow } from '../domain/series-math.ts';
import type { MetricsRepository } from '../repositories/metrics.repository.ts';

export async function readSeriesRows(
  metrics: Pick<MetricsRepository, 'seriesRows'>,
  runId: string,
  list: readonly { id: string; kind: string }[],
  fromMs: number,
  toMs: number,
  heavy: (kind: SeriesKind) => boolean = () => false,
): Promise<Map<string, StoredRow[]>> {
  const heavyIds = list.filter((s) => heavy(s.kind as SeriesKind)).map((s) => s.id);
  const lightIds = list.filter((s) => !heavy(s.kind as SeriesKind)).map((s) => s.id);
  const [rows, heavyRows] = await Promise.all([
    metrics.seriesRows(runId, lightIds, fromMs, toMs, false),
    metrics.seriesRows(runId, heavyIds, fromMs, toMs, true),
  ]);
  for (const [k, v] of heavyRows) rows.set(k, v);
  return rows;
}
