// While a run is open, its page follows GET /runs/{id}/live (EventSource): each state's views
// go straight into the queries the page reads (the same answers the stored routes give with
// their defaults), the page's other reads of the run are refreshed, and at the end event the
// stream closes and every read of the run is taken again from the stored result.
import { paths } from '@meshbench/client';
import { type RunLive, runLive } from '@meshbench/schema';
import { type QueryClient, type QueryKey, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { runPropagationParams } from '../../churn/hooks/use-run-propagation.ts';
import { TIMELINE_POINTS } from '../../timeline/hooks/use-timeline.ts';
import { DEFAULT_PROPAGATION_OPTIONS } from './propagation-options.ts';
import { SUMMARY_PARAMS } from './use-propagation.ts';

/** The churn section's query with the page's defaults: what a live state's `churn` answers. */
export const LIVE_CHURN_PARAMS = runPropagationParams(DEFAULT_PROPAGATION_OPTIONS, 'linear');

export interface LiveStatus {
  /** streaming: events arriving; ended: the run finished while watched. */
  state: 'streaming' | 'ended';
  version: number;
  at: Date;
}

/** The query keys a live state answers, with their data. */
export function liveEntries(routeId: string, s: RunLive): [QueryKey, unknown][] {
  const id = s.run.id;
  return [
    [['run', routeId], s.run],
    [['run', id], s.run],
    [['changes', id], s.changes],
    // A change with no summary yet keeps its own read (which says why).
    ...s.propagation
      .filter((p) => p.summary !== null)
      .map((p): [QueryKey, unknown] => [['propagation', id, p.change, SUMMARY_PARAMS], p.summary]),
    // A churn run: every change, pooled and per change, as the churn section reads it.
    ...(s.churn
      ? [[['run-propagation', id, LIVE_CHURN_PARAMS], s.churn] as [QueryKey, unknown]]
      : []),
    [['timeline', id, TIMELINE_POINTS], s.timeline],
    [['load-results', id], s.results],
    [['load-stages', id, '50,99'], s.stages],
    // null: the run has no interval data (what the stages read makes of a 404).
  ];
}

const sameKey = (a: QueryKey, b: QueryKey) => JSON.stringify(a) === JSON.stringify(b);

function apply(client: QueryClient, routeId: string, s: RunLive, ended: boolean) {
  const entries = liveEntries(routeId, s);
  for (const [key, data] of entries) client.setQueryData(key, data);
  // The page's other reads of this run (a histogram's range, other percentiles): read again.
  void client.invalidateQueries({
    predicate: (q) =>
      (q.queryKey.includes(s.run.id) || q.queryKey.includes(routeId)) &&
      (ended || !entries.some(([key]) => sameKey(key, q.queryKey))),
  });
}

export function useRunLive(routeId: string, open: boolean): LiveStatus | null {
  const client = useQueryClient();
  const [status, setStatus] = useState<LiveStatus | null>(null);
  // Once following, until the end event: states during the finish already say `finished`.
  const [following, setFollowing] = useState(false);
  useEffect(() => {
    if (open) setFollowing(true);
  }, [open]);
  useEffect(() => {
    if (!following || typeof EventSource === 'undefined') return;
    const source = new EventSource(`/api/v1${paths.live(routeId)}`);
    const on = (kind: 'state' | 'end') => (e: MessageEvent<string>) => {
      const parsed = runLive.safeParse(JSON.parse(e.data));
      if (!parsed.success) return;
      if (kind === 'end') {
        source.close();
        setFollowing(false);
      }
      apply(client, routeId, parsed.data, kind === 'end');
      setStatus({
        state: kind === 'end' ? 'ended' : 'streaming',
        version: parsed.data.version,
        at: new Date(),
      });
    };
    const state = on('state');
    const end = on('end');
    source.addEventListener('state', state);
    source.addEventListener('end', end);
    return () => {
      source.removeEventListener('state', state);
      source.removeEventListener('end', end);
      source.close();
    };
  }, [client, routeId, following]);
  return status;
}
