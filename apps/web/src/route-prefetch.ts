// The reads a page makes first, started from the address before the page's code has loaded:
// the run and its changes, then the runs' headlines (the summary sentence the page opens
// with) and the summary with its histogram as first drawn (one request: the API sizes it) of
// each change the page shows (a churn run's one, `?change=` or the first: not all twenty),
// each as soon as what it needs is in, instead of waiting for the page to render each step.
// A run without changes may be a stages run, whose page opens on its stages view: its stages
// are asked for beside the headline, and their code is loaded once they say there are some.
// The compare page's are one read (GET /compare).
// The queries are the pages' own (same keys), so the pages find them in the cache or in flight.
import type { QueryClient } from '@tanstack/react-query';
import {
  compareViewQuery,
  MAX_COMPARED,
  MIN_COMPARED,
  parseCompareRuns,
} from './features/compare/hooks/use-compare.ts';
import { loadStagesQuery } from './features/load-results/hooks/use-load-stages.ts';
import { shownChanges } from './features/runs/hooks/shown-changes.ts';
import {
  FIRST_HISTOGRAM_SCALE,
  histogramParams,
  histogramQuery,
} from './features/runs/hooks/use-propagation.ts';
import { changesQuery, headlinesQuery, runQuery } from './features/runs/hooks/use-runs.ts';

// A failed prefetch is left to the page: its own query shows the error and retries.
const quietly = () => undefined;

/** The stages view's read, at the percentiles the address asks for, then its code if needed. */
async function stagesView(client: QueryClient, runId: string, search: string) {
  // The view's reading of the address (its own small chunk, which the view loads anyway).
  const { loadViewFromSearch } = await import('./features/load-results/hooks/load-view.ts');
  const { percentiles } = loadViewFromSearch(new URLSearchParams(search));
  const stages = await client.fetchQuery(loadStagesQuery(runId, percentiles));
  if (stages && stages.series.length > 0)
    await import('./features/load-results/components/StagesSection.tsx');
}

async function runPage(client: QueryClient, ref: string, search: string) {
  const [run, changes] = await Promise.all([
    client.fetchQuery(runQuery(ref)),
    client.fetchQuery(changesQuery(ref)),
  ]);
  const wantedChange = new URLSearchParams(search).get('change');
  await Promise.all([
    // The page's first line, keyed by the run's id (the address may hold its share slug).
    client.prefetchQuery(headlinesQuery([run.id])),
    ...(changes.length === 0 ? [stagesView(client, run.id, search)] : []),
    ...shownChanges(changes, wantedChange).map(async (change) => {
      // The linear histogram's request is the summary's (the same key): one request.
      const params = histogramParams(FIRST_HISTOGRAM_SCALE);
      await client.prefetchQuery(histogramQuery(run.id, change.id, params));
    }),
  ]);
}

async function comparePage(client: QueryClient, refs: string[]) {
  // Everything the table needs is one read: the runs, changes, summaries and headlines.
  await client.prefetchQuery(compareViewQuery(refs));
}

/** Starts the first reads of the page at `pathname` + `search`, if it is one that has them. */
export function prefetchRoute(client: QueryClient, pathname: string, search: string): void {
  const run = /^\/runs\/([^/]+)\/?$/.exec(pathname);
  if (run) {
    runPage(client, decodeURIComponent(run[1] as string), search).catch(quietly);
    return;
  }
  if (pathname === '/compare') {
    const refs = parseCompareRuns(new URLSearchParams(search).get('runs'));
    if (refs.length >= MIN_COMPARED && refs.length <= MAX_COMPARED)
      comparePage(client, refs).catch(quietly);
  }
}
