// GET /compare: what the compare page's table needs, in one answer: the runs, their changes,
// the summary of each paired change, the headlines, the comparability and which runs have load
// results or a timeline. Read on the headlines' batched repositories (headline-reads.ts), so
// every run at the same step shares one query and the answer costs a fixed number of queries.
import {
  type Comparability,
  type ComparabilityPin,
  type CompareView,
  type CompareViewQuery,
  type compareViewQuery,
  pairChanges,
  type RunHeadline,
  type StoredLoadResult,
} from '@meshbench/schema';
import type { z } from 'zod';
import { type Principal, readRefusal } from '../domain/access.ts';
import { notFound } from '../errors.ts';
import type { ClockRepository } from '../repositories/clock.repository.ts';
import type { RunRow, RunsRepository } from '../repositories/runs.repository.ts';
import { type ClockCorrectionService, clockCorrectionService } from './clock-correction.service.ts';
import { comparabilityOfRuns, factsOf, whereRun } from './comparability.service.ts';
import type { BatchedReads, HeadlineReads } from './headline-reads.ts';
import { type ProjectsService, refuse } from './projects.service.ts';
import { propagationService } from './propagation.service.ts';
import { batchedRead } from './read-batch.ts';
import { toRun } from './runs.service.ts';

export type CompareViewRequest = z.output<typeof compareViewQuery>;
export type { CompareViewQuery };

export function compareViewService(deps: {
  runs: Pick<RunsRepository, 'findMany'>;
  projects: Pick<ProjectsService, 'visibility'>;
  /** The batched reads of these runs (headline-reads.ts). */
  readsFor: (rows: RunRow[]) => BatchedReads;
  headlines: { ofLoaded: (rows: RunRow[], reads: HeadlineReads) => Promise<RunHeadline[]> };
  clocks: Pick<ClockRepository, 'clockStates' | 'inCorrection' | 'staleCorrections'>;
  /** The process's own corrections: a corrected summary it is computing is waited for. */
  corrections: Pick<ClockCorrectionService, 'correctedRead' | 'correctionPending'>;
  series: { runsWithSeries: (runIds: string[]) => Promise<Set<string>> };
}) {
  /** The runs named, in order, each readable by the principal; else a 404 or a refusal. */
  async function chosenRuns(refs: string[], principal: Principal): Promise<RunRow[]> {
    const found = await deps.runs.findMany(refs);
    const chosen = refs.map((ref) => {
      const run = found.find((r) => r.id === ref) ?? found.find((r) => r.slug === ref);
      if (!run) throw notFound(`run "${ref}"`);
      return run;
    });
    const visibility = new Map<string, Awaited<ReturnType<ProjectsService['visibility']>>>();
    for (const run of chosen) {
      if (!visibility.has(run.projectId))
        visibility.set(run.projectId, await deps.projects.visibility(run.projectId));
      refuse(readRefusal(principal, run.projectId, visibility.get(run.projectId) ?? 'private'));
    }
    return chosen;
  }

  /** The comparability facts of `rows` (in order, the first the baseline), read in one batch. */
  function comparabilityOfRows(
    rows: RunRow[],
    results: StoredLoadResult[][],
    same: readonly ComparabilityPin[] = [],
  ): Comparability {
    return comparabilityOfRuns(
      rows.map((run, i) => {
        const mesh = { name: run.meshName, version: run.meshVersion };
        return factsOf({ ...run, mesh }, results[i] ?? [], whereRun({ id: run.id, mesh }, i === 0));
      }),
      same,
    );
  }

  return {
    /**
     * GET /compare/comparability: whether the runs named can be compared, each readable by
     * the principal; their load results read together (one query for all of them).
     */
    async comparability(
      refs: string[],
      same: readonly ComparabilityPin[],
      principal: Principal,
    ): Promise<Comparability> {
      const rows = await chosenRuns(refs, principal);
      const reads = deps.readsFor(rows);
      const results = await Promise.all(rows.map((r) => reads.results.list(r.id)));
      return comparabilityOfRows(rows, results, same);
    },

    async view(q: CompareViewRequest, principal: Principal): Promise<CompareView> {
      const rows = await chosenRuns(q.runs, principal);
      const ids = rows.map((r) => r.id);
      const reads = deps.readsFor(rows);
      const { repositories } = reads;
      // The summaries say what the propagation route says of node clocks: the clock state of
      // every run read at once; a correction still pending is asked of the process's own
      // service, which waits for one it is computing.
      const clockState = batchedRead((id: string) => id, deps.clocks.clockStates);
      const batchedCorrections = clockCorrectionService({
        propagation: repositories.propagation,
        clocks: {
          ...deps.clocks,
          clockState: async (runId) =>
            (await clockState(runId)) ?? { hasReports: false, latestBatch: 0 },
        },
      });
      const summaries = propagationService({
        runs: repositories.runs,
        propagation: repositories.propagation,
        corrections: {
          correctionPending: deps.corrections.correctionPending,
          correctedRead: async (runId, changeId, stage) => {
            const state = await batchedCorrections.correctedRead(runId, changeId, stage);
            return state.pending ? deps.corrections.correctedRead(runId, changeId, stage) : state;
          },
        },
      });

      const changesRead = Promise.all(ids.map((id) => summaries.changes(id)));
      const summariesRead = changesRead.then((changes) =>
        Promise.all(
          pairChanges(changes).flatMap((pair) =>
            pair.changes.flatMap((change, i) => {
              const runId = ids[i] as string;
              if (!change) return [];
              return [
                summaries
                  .propagation(runId, change.id, {
                    percentiles: q.percentiles,
                    withinMs: q.withinMs,
                    bins: q.bins,
                    scale: q.scale,
                  })
                  .then((summary) => ({ runId, changeId: change.id, summary })),
              ];
            }),
          ),
        ),
      );
      const resultsRead = Promise.all(ids.map((id) => reads.results.list(id)));
      const phasesRead = Promise.all(ids.map((id) => reads.lifecycle.phases(id)));
      const [changes, paired, headlines, results, phases, withSeries] = await Promise.all([
        changesRead,
        summariesRead,
        deps.headlines.ofLoaded(rows, reads),
        resultsRead,
        phasesRead,
        deps.series.runsWithSeries(ids),
      ]);
      const comparability = comparabilityOfRows(rows, results);
      return {
        runs: rows.map(toRun),
        changes,
        summaries: paired,
        headlines,
        comparability,
        has: ids.map((id, i) => ({
          loadResults: (results[i]?.length ?? 0) > 0,
          timeline: (phases[i]?.length ?? 0) > 0 || withSeries.has(id),
        })),
      };
    },
  };
}
export type CompareViewService = ReturnType<typeof compareViewService>;
