// The run page's tail causes of one change: fetches the tail at the cut picked (in the URL),
// and what sets it apart, and hands them to TailView. With the cut on Auto the attribution
// takes the API's own default, the slowest 1 % (P99): the outliers, where one node or cause
// can hold most of the tail, however wide the causes' tail is.
import type { Change } from '@meshbench/schema';
import { useCallback, useMemo } from 'react';
import { useSearchParams } from 'react-router';
import { changeTailUrl } from '../../../api/urls.ts';
import {
  type TailThreshold,
  tailThresholdFromSearch,
  tailThresholdToSearch,
} from '../../../charts/prepare/tail.ts';
import { ErrorMessage, Loading } from '../../../ui/QueryState.tsx';
import { tailParams, useTail, useTailAttribution } from '../hooks/use-tail.ts';
import { TailAttributionView } from './TailAttributionView.tsx';
import { TailView } from './TailView.tsx';

export function TailPanel({ runId, change }: { runId: string; change: Change }) {
  // The cut lives in the URL (`?tail=`), so a shared link shows the same tail.
  const [search, setSearch] = useSearchParams();
  const threshold = useMemo(() => tailThresholdFromSearch(search), [search]);
  const setThreshold = useCallback(
    (next: TailThreshold) => setSearch((s) => tailThresholdToSearch(s, next), { replace: true }),
    [setSearch],
  );
  const query = useTail(runId, change.id, threshold);
  const attribution = useTailAttribution(runId, change.id, threshold);
  return (
    <TailView
      change={change}
      tail={query.data}
      threshold={threshold}
      onThreshold={setThreshold}
      csvUrl={changeTailUrl(runId, change.id, { ...tailParams(threshold), format: 'csv' })}
      busy={query.isFetching || attribution.isFetching}
      explained={
        attribution.data ? (
          <TailAttributionView attribution={attribution.data} />
        ) : attribution.isError ? (
          <ErrorMessage error={attribution.error} what="what sets the tail apart" />
        ) : undefined
      }
      state={
        query.isPending ? (
          <Loading what="the tail" />
        ) : query.isError ? (
          <ErrorMessage error={query.error} what="the tail" />
        ) : undefined
      }
    />
  );
}
