// The run page's distributions over the run: fetches the run's series, prepares their table
// and hands it to SeriesStatsView (nothing when no series is a distribution).
import { useMemo } from 'react';
import { runSeriesUrl } from '../../../api/urls.ts';
import { prepareSeriesStats } from '../../../charts/prepare/series-stats.ts';
import { ErrorMessage, Loading } from '../../../ui/QueryState.tsx';
import { useSeries } from '../hooks/use-series.ts';
import { SeriesStatsView } from './SeriesStatsView.tsx';

export function SeriesStatsTable({ runId }: { runId: string }) {
  const query = useSeries(runId);
  const table = useMemo(() => (query.data ? prepareSeriesStats(query.data) : null), [query.data]);
  if (query.isPending) return <Loading what="series stats" />;
  if (query.isError) return <ErrorMessage error={query.error} what="the series stats" />;
  if (!table || table.rows.length === 0) return null;
  return <SeriesStatsView table={table} jsonUrl={runSeriesUrl(runId)} />;
}
