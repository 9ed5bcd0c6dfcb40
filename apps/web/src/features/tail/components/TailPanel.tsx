// The run page's tail causes of one change: fetches the tail at the threshold picked, and
// what sets it apart, and hands them to TailView.
import type { Change } from '@meshbench/schema';
import { useState } from 'react';
import { changeTailUrl } from '../../../api/urls.ts';
import { DEFAULT_TAIL_THRESHOLD, type TailThreshold } from '../../../charts/prepare/tail.ts';
import { ErrorMessage, Loading } from '../../../ui/QueryState.tsx';
import { tailParams, useTail, useTailAttribution } from '../hooks/use-tail.ts';
import { TailAttributionView } from './TailAttributionView.tsx';
import { TailView } from './TailView.tsx';

export function TailPanel({ runId, change }: { runId: string; change: Change }) {
  const [threshold, setThreshold] = useState<TailThreshold>(DEFAULT_TAIL_THRESHOLD);
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
