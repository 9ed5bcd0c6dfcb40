// The reads a page makes first, started from the address before the page's code has loaded:
// the run and its changes, then the runs' headlines (the summary sentence the page opens
// with) and the summary with its histogram as first drawn (one request: the API sizes it) of
// each change the page shows (a churn run's one, `?change=` or the first: not all twenty),
// each as soon as what it needs is in, instead of waiting for the page to render each step.
// An address with the run's id (not its share slug) asks for the headline at once, beside the
// run. A run without changes (the run says how many it has) may be a stages run, whose page
// opens on its stages view: its stages are asked for as soon as the run is in, and their code
// is loaded once they say there are some. A churn run's view of all its changes (the page's
// first section) is asked for, and its code loaded, as soon as the run is in.
// The compare page's are one read (GET /compare).
// The queries are the pages' own (same keys), so the pages find them in the cache or in flight.
import type { QueryClient } from '@tanstack/react-query';
import { runPropagationQuery } from './features/churn/hooks/use-run-propagation.ts';
import {
  compareViewQuery,
  MAX_COMPARED,
  MIN_COMPARED,
  parseCompareRuns,
} from './features/compare/hooks/use-compare.ts';
import { loadStagesQuery } from './features/load-results/hooks/use-load-stages.ts';
import { optionsFromSearch } from './features/runs/hooks/propagation-options.ts';
import { shownChanges } from './features/runs/hooks/shown-changes.ts';
import {
  FIRST_HISTOGRAM_SCALE,
  histogramParams,
  histogramQuery,
} from './features/runs/hooks/use-propagation.ts';
import { changesQuery, headlinesQuery, runQuery } from './features/runs/hooks/use-runs.ts';

// A failed prefetch is left to the page: its own query shows the error and retries.
const quietly = () => undefined;

/** A run's id, as opposed to its share slug: the headline is keyed (and asked) by id. */
const RUN_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The stages view's read, at the percentiles the address asks for, then its code if needed. */
async function stagesView(client: QueryClient, runId: string, search: string) {
  // The view's reading of the address (its own small chunk, which the view loads anyway).
  const { loadViewFromSearch } = await import('./features/load-results/hooks/load-view.ts');
  const { percentiles } = loadViewFromSearch(new URLSearchParams(search));
  const stages = await client.fetchQuery(loadStagesQuery(runId, percentiles));
  if (stages && stages.series.length > 0)
    await import('./features/load-results/components/StagesSection.tsx');
}

/** A churn run's view of all its changes: its read, at the address's options, and its code. */
async function churnView(client: QueryClient, runId: string, search: string) {
  const params = new URLSearchParams(search);
  const scale = params.get('heatmapScale') === 'log' ? 'log' : 'linear';
  await Promise.all([
    client.prefetchQuery(runPropagationQuery(runId, optionsFromSearch(params), scale)),
    import('./features/churn/components/ChurnSection.tsx'),
  ]);
}

async function runPage(client: QueryClient, ref: string, search: string) {
  // An address with the run's id asks for its headline at once, beside the run (a share slug
  // waits for the run to say its id).
  const headline = RUN_ID.test(ref) ? client.prefetchQuery(headlinesQuery([ref])) : null;
  const changesRead = client.fetchQuery(changesQuery(ref));
  // Failures are left to the page (and this read's, should the run's fail first).
  changesRead.catch(quietly);
  const run = await client.fetchQuery(runQuery(ref));
  // The run says how many changes it has: a run without any may be a stages run, and its
  // stages are asked for without waiting for the (empty) list of changes.
  const stages = run.changes === 0 ? stagesView(client, run.id, search) : null;
  const churn = run.changes >= 2 ? churnView(client, run.id, search) : null;
  stages?.catch(quietly);
  churn?.catch(quietly);
  const changes = await changesRead;
  const wantedChange = new URLSearchParams(search).get('change');
  await Promise.all([
    // The page's first line, keyed by the run's id (the address may hold its share slug).
    headline ?? client.prefetchQuery(headlinesQuery([run.id])),
    stages,
    churn,
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
