// What the headlines of a page of runs read: the very services a run's own pages read
// (propagation, churn, results, lifecycle), built for one request on repositories whose reads
// are batched (read-batch.ts), so every run at the same step of its headline shares one query
// and a page costs a fixed number of queries, however many runs it lists.
import type { LifecycleRepository } from '../repositories/lifecycle.repository.ts';
import {
  DEFAULT_STAGE,
  type PropagationRepository,
  type propagationOfRuns,
  type SummaryKey,
  summaryKeyText,
} from '../repositories/propagation.repository.ts';
import type { ResultsRepository, resultsOfRuns } from '../repositories/results.repository.ts';
import type { RunRow, RunsRepository } from '../repositories/runs.repository.ts';
import { type ChurnService, churnService } from './churn.service.ts';
import type { ClockCorrectionService } from './clock-correction.service.ts';
import { type PropagationService, propagationService } from './propagation.service.ts';
import { batchedRead } from './read-batch.ts';
import { type ResultsService, resultsService } from './results.service.ts';
import type { UploadCounts } from './upload-counts.ts';

/** The reads a run's headline makes. */
export interface HeadlineReads {
  propagation: Pick<PropagationService, 'changes' | 'propagation'>;
  churn: Pick<ChurnService, 'pooledHeadline'>;
  results: Pick<ResultsService, 'list' | 'stages'>;
  lifecycle: Pick<LifecycleRepository, 'phases'>;
}

export interface HeadlineReadsDeps {
  runs: RunsRepository;
  propagation: PropagationRepository;
  propagationOfRuns: ReturnType<typeof propagationOfRuns>;
  results: ResultsRepository;
  resultsOfRuns: ReturnType<typeof resultsOfRuns>;
  lifecycle: LifecycleRepository;
  corrections: Pick<ClockCorrectionService, 'correctionPending'>;
  uploads: UploadCounts;
}

/**
 * `read`, each key's answer kept for the life of these reads (one request): a later call of the
 * same key is answered from the first.
 */
function keptForRequest<V>(read: (id: string) => Promise<V>): (id: string) => Promise<V> {
  const kept = new Map<string, Promise<V>>();
  return (id) => {
    let answer = kept.get(id);
    if (!answer) {
      answer = read(id);
      kept.set(id, answer);
    }
    return answer;
  };
}

const byRunAndStage = (k: { runId: string; stage: string }) => `${k.runId} ${k.stage}`;

/**
 * HeadlineReads, with the batched repositories they are built on (for other reads of the same
 * runs that share their queries: the compare read's).
 */
export interface BatchedReads extends HeadlineReads {
  repositories: { runs: RunsRepository; propagation: PropagationRepository };
}

/** The reads of the headlines of `rows` (runs already loaded: not looked up again). */
export function headlineReads(deps: HeadlineReadsDeps): (rows: RunRow[]) => BatchedReads {
  return (rows) => {
    const loaded = new Map(rows.map((r) => [r.id, r]));
    const runs: RunsRepository = {
      ...deps.runs,
      find: async (ref) => loaded.get(ref) ?? deps.runs.find(ref),
    };
    const many = deps.propagationOfRuns;
    const changesOf = batchedRead((id: string) => id, many.changesOf);
    const stagesOf = batchedRead((id: string) => id, many.stagesOf);
    const withSummary = batchedRead(summaryKeyText, many.changeWithSummary);
    const blocksOf = batchedRead(
      (k: SummaryKey & { blockNos: number[] }) => `${summaryKeyText(k)} ${k.blockNos.join(',')}`,
      async (keys) => {
        // Calls for blocks of the same summary read the blocks any of them asked for.
        const union = new Map<string, SummaryKey & { blockNos: number[] }>();
        for (const k of keys) {
          const u = union.get(summaryKeyText(k));
          if (u) u.blockNos = [...new Set([...u.blockNos, ...k.blockNos])];
          else union.set(summaryKeyText(k), { ...k, blockNos: [...k.blockNos] });
        }
        const found = await many.blocks([...union.values()]);
        return new Map(
          keys.map((k) => {
            const all = found.get(summaryKeyText(k)) ?? new Map<number, Float64Array>();
            const mine = new Map<number, Float64Array>();
            for (const n of k.blockNos) {
              const block = all.get(n);
              if (block) mine.set(n, block);
            }
            return [`${summaryKeyText(k)} ${k.blockNos.join(',')}`, mine];
          }),
        );
      },
    );
    const changesWithStage = batchedRead(byRunAndStage, many.changesWithStage);
    const runLatencies = batchedRead(byRunAndStage, many.runLatencies);
    const propagation: PropagationRepository = {
      ...deps.propagation,
      changesOf: async (runId) => (await changesOf(runId)) ?? [],
      stagesOf: async (runId, changeId) => {
        const all = (await stagesOf(runId)) ?? [];
        return (changeId === undefined ? all : all.filter((s) => s.changeId === changeId)).map(
          (s) => ({ ...s }),
        );
      },
      changeWithSummary: (runId, changeId, clock = 'raw', stage = DEFAULT_STAGE) =>
        withSummary({ runId, changeId, clock, stage }),
      blocks: async (runId, changeId, blockNos, clock = 'raw', stage = DEFAULT_STAGE) =>
        blockNos.length === 0
          ? new Map()
          : ((await blocksOf({ runId, changeId, clock, stage, blockNos })) ?? new Map()),
      changesWithStage: async (runId, stage) => (await changesWithStage({ runId, stage })) ?? [],
      runLatencies: async (runId, stage) => (await runLatencies({ runId, stage })) ?? new Map(),
    };

    const results = deps.resultsOfRuns;
    // A data-plane run's headline reads its points twice (the list, then its stages): kept for
    // the request, so that its points and histograms are read (and sent by the database) once.
    const ofRun = keptForRequest(batchedRead((id: string) => id, results.ofRun));
    const histogramsOfRun = keptForRequest(
      batchedRead((id: string) => id, results.histogramsOfRun),
    );
    const intervalsOfRun = batchedRead((id: string) => id, results.intervalsOfRun);
    const slotsOfRun = batchedRead(
      (k: { runId: string; percentiles: number[] }) => `${k.runId} ${k.percentiles.join(',')}`,
      async (keys) => {
        const out = new Map<string, Awaited<ReturnType<ResultsRepository['slotsOfRun']>>>();
        const bySet = new Map<string, string[]>();
        for (const k of keys) {
          const set = k.percentiles.join(',');
          bySet.set(set, [...(bySet.get(set) ?? []), k.runId]);
        }
        for (const [set, ids] of bySet) {
          const found = await results.slotsOfRun(ids, set === '' ? [] : set.split(',').map(Number));
          for (const [id, slots] of found) out.set(`${id} ${set}`, slots);
        }
        return out;
      },
    );
    const lifecycle = batchedRead((id: string) => id, deps.lifecycle.phasesOfRuns);

    return {
      repositories: { runs, propagation },
      // A headline reads raw latencies only: the corrected clock's figures are not read.
      propagation: propagationService({
        runs,
        propagation,
        corrections: {
          correctedRead: async () => ({ hasReports: false, pending: false, summary: undefined }),
          correctionPending: deps.corrections.correctionPending,
        },
      }),
      churn: churnService({ runs, propagation }),
      results: resultsService({
        runs,
        results: {
          ...deps.results,
          ofRun: async (runId) => (await ofRun(runId)) ?? [],
          histogramsOfRun: async (runId) => (await histogramsOfRun(runId)) ?? [],
          intervalsOfRun: async (runId) => (await intervalsOfRun(runId)) ?? [],
          slotsOfRun: async (runId, percentiles) =>
            (await slotsOfRun({ runId, percentiles })) ?? null,
        },
        uploads: deps.uploads,
      }),
      lifecycle: { phases: async (runId) => (await lifecycle(runId)) ?? [] },
    };
  };
}
