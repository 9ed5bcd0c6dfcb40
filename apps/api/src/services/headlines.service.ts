// The runs list's headlines: for each run asked for, the number its kind is judged by (P99 and
// share within 1 s of its change, or pooled over its changes with the worst one named; time
// to all joined; P99 at the top load rate, merged over the step's generators). Read apart from
// the list, so the list itself stays one query; the headlines of a page read in a fixed
// number of queries, however many runs it has (headline-reads.ts).
import type { RunHeadline } from '@meshbench/schema';
import { type Principal, privateProjectsVisible } from '../domain/access.ts';
import { dataPlaneHeadline, scaleUpHeadline, stagesHeadline } from '../domain/run-headline.ts';
import type { RunRow, RunsRepository } from '../repositories/runs.repository.ts';
import type { HeadlineReads } from './headline-reads.ts';

/** The Consul benchmark's "within 1 s". */
export const HEADLINE_WITHIN_MS = 1000;

export function headlinesService(deps: {
  runs: Pick<RunsRepository, 'readableByIds' | 'find'>;
  /**
   * The reads of the headlines of these runs (headline-reads.ts): the runs' pages' own
   * services, whose reads of many runs at once are one query each.
   */
  readsFor: (runs: RunRow[]) => HeadlineReads;
}) {
  const { runs, readsFor } = deps;

  async function headline(
    run: RunRow,
    { propagation, churn, results, lifecycle }: HeadlineReads,
  ): Promise<RunHeadline | null> {
    if (run.changeCount > 1) {
      const pooled = await churn.pooledHeadline(run.id, HEADLINE_WITHIN_MS);
      if (pooled) return { runId: run.id, kind: 'propagation', ...pooled };
    }
    if (run.changeCount > 0) {
      const [first] = await propagation.changes(run.id);
      if (first) {
        const p = await propagation.propagation(run.id, first.id, {
          percentiles: [50, 99],
          withinMs: HEADLINE_WITHIN_MS,
          bins: 1,
          scale: 'linear',
        });
        return {
          runId: run.id,
          kind: 'propagation',
          summary: 'change',
          changes: 1,
          changeId: first.id,
          count: p.count,
          p99: p.percentiles.find((q) => q.p === 99) ?? null,
          withinMs: HEADLINE_WITHIN_MS,
          withinFraction: p.withinFraction,
          worst: null,
          expected: p.expected,
          p50: p.percentiles.find((q) => q.p === 50) ?? null,
          lastMs: p.maxMs,
        };
      }
    }
    const points = dataPlaneHeadline(await results.list(run.id));
    if (points) {
      const stages = stagesHeadline(await results.stages(run.id, [50, 99]));
      return { runId: run.id, kind: 'data-plane', ...points, stages };
    }
    const phases = scaleUpHeadline(
      await lifecycle.phases(run.id),
      run.topology,
      run.startedAt.getTime(),
    );
    if (phases) return { runId: run.id, kind: 'scale-up', ...phases };
    return null;
  }

  return {
    /** One run's headline (a report freezes it); null when it has none or no such run. */
    async ofRun(runId: string): Promise<RunHeadline | null> {
      const run = await runs.find(runId);
      return run ? headline(run, readsFor([run])) : null;
    },

    /**
     * Headlines of runs already loaded (and their access checked), read with `reads` (whose
     * batches other reads of the same runs share); runs without one are left out.
     */
    async ofLoaded(rows: RunRow[], reads: HeadlineReads): Promise<RunHeadline[]> {
      const found = await Promise.all(rows.map((run) => headline(run, reads)));
      return found.filter((h): h is RunHeadline => h !== null);
    },

    /**
     * Headlines of the runs the principal may read among `ids`, in the order of `ids` (not the
     * database's, which moves as rows are updated); runs without one are left out.
     */
    async headlines(ids: string[], principal: Principal): Promise<RunHeadline[]> {
      const position = new Map(ids.map((id, i) => [id, i]));
      const rows = (await runs.readableByIds(ids, privateProjectsVisible(principal))).sort(
        (a, b) => (position.get(a.id) ?? 0) - (position.get(b.id) ?? 0),
      );
      const reads = readsFor(rows);
      const found = await Promise.all(rows.map((run) => headline(run, reads)));
      return found.filter((h): h is RunHeadline => h !== null);
    },
  };
}
export type HeadlinesService = ReturnType<typeof headlinesService>;
