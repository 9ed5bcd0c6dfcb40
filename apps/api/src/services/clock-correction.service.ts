// Clock correction: a change's corrected summary (its first applications with each node's
// clock offset taken out) computed from the run's clock reports and kept beside the raw one;
// after a write in this process's background, at the finish, and by the background worker
// for runs written since. A read never computes one: it waits for this process's correction
// in progress, else says pending.

import { APPLIED_STAGE } from '@meshbench/schema';
import { correctLatencies, type NodeClock, nodeClocks } from '../domain/clock-correction.ts';
import {
  type FirstApplications,
  latencySet,
  type ObservedStage,
} from '../domain/first-applications.ts';
import { keptSummary } from '../domain/kept-summary.ts';
import { AppError } from '../errors.ts';
import type { ClockRepository } from '../repositories/clock.repository.ts';
import type { PropagationRepository } from '../repositories/propagation.repository.ts';

/** What one correction pass over a run carries from stage to stage. */
interface Pass {
  batches: ReadonlyMap<string, FirstApplications>;
  /** The node clocks and the version of the reports they were built from. */
  clocks: { version: string; clocks: Map<string, NodeClock> } | undefined;
}

const stageKey = (changeId: string, stage: string) => JSON.stringify([changeId, stage]);

export type SummaryRow = NonNullable<
  Awaited<ReturnType<PropagationRepository['changeWithSummary']>>
>['summary'];

export function clockCorrectionService(deps: {
  propagation: Pick<PropagationRepository, 'changeWithSummary' | 'stagesOf'>;
  clocks: Pick<ClockRepository, 'inCorrection' | 'clockState' | 'staleCorrections'>;
}) {
  const { propagation, clocks } = deps;

  /**
   * Computes a change's corrected summary from its raw first applications and the run's
   * clock reports, in one transaction under the locks batches take, and keeps it.
   */
  async function computeCorrected(runId: string, changeId: string, stage: string, pass: Pass) {
    await clocks.inCorrection(runId, changeId, stage, async (store) => {
      // Everything read under the locks: what batches committed before them, and no more.
      const inputBatch = await store.latestBatch();
      const change = await store.change();
      if (!change) return;
      // A stage whose every observation came in one batch this process stored: its first
      // applications are that batch's own, not read again. The raw summary counts every
      // committed batch's observations, so the counts agree only when no other batch has any.
      const own = pass.batches.get(stageKey(changeId, stage));
      const firsts =
        own && own.observations === change.observations
          ? own.withNodes()
          : await store.firstApplications();
      const version = await store.reportsVersion();
      if (pass.clocks?.version !== version)
        pass.clocks = { version, clocks: nodeClocks(await store.reports()) };
      const corrected = correctLatencies(firsts, change.atUs, pass.clocks.clocks);
      const set = latencySet(corrected.latencies, Math.max(change.observations, firsts.length));
      await store.save({
        ...keptSummary(set),
        clockMaxErrorUs: corrected.maxErrorUs,
        clockNodes: corrected.clockNodes,
        uncorrectedNodes: corrected.uncorrectedNodes,
        clockInputBatch: inputBatch,
      });
    });
  }

  /** Whether a change's kept corrected summary was computed from the run's latest batch. */
  const fresh = (row: { summary: SummaryRow | null } | undefined, latest: number) => {
    const input = row?.summary?.clockInputBatch;
    return input !== null && input !== undefined && input >= latest;
  };

  /** Computes the corrected summary of the change at `stage` when missing or stale. */
  async function correctIfStale(runId: string, changeId: string, stage: string, pass: Pass) {
    const { latestBatch } = await clocks.clockState(runId);
    const row = await propagation.changeWithSummary(runId, changeId, 'corrected', stage);
    if (row && !fresh(row, latestBatch)) await computeCorrected(runId, changeId, stage, pass);
  }

  /**
   * Computes the corrected summary of each of the run's changes that lacks a fresh one;
   * returns how many it computed. `batches`: the first applications of batches this process
   * stored, by change and stage (stageKey), which a stage they hold whole is computed from.
   */
  async function correctRun(
    runId: string,
    batches: ReadonlyMap<string, FirstApplications> = new Map(),
  ): Promise<number> {
    if (!(await clocks.clockState(runId)).hasReports) return 0;
    let computed = 0;
    // The node clocks are built once for the pass, and again only if reports came meanwhile.
    const pass: Pass = { batches, clocks: undefined };
    for (const { changeId: id, stage } of await propagation.stagesOf(runId)) {
      const before = await propagation.changeWithSummary(runId, id, 'corrected', stage);
      await correctIfStale(runId, id, stage, pass);
      const after = await propagation.changeWithSummary(runId, id, 'corrected', stage);
      if (before?.summary?.computedAtUs !== after?.summary?.computedAtUs) computed++;
    }
    return computed;
  }

  /**
   * Corrections this process is computing after a write, by run: the work, and whether
   * another write came while it ran (then it runs once more). A read never starts one.
   */
  const correcting = new Map<
    string,
    { job: Promise<unknown>; again: boolean; batches: Map<string, FirstApplications> }
  >();

  /**
   * After a write to the run: its corrected summaries computed in the background of this
   * process (a failure, or a process that stops, is left to the background worker).
   * `observed`: the batch's first applications by change and stage, which a stage it holds
   * whole is corrected from without reading them again.
   */
  function correctAfterWrite(runId: string, observed: readonly ObservedStage[] = []): void {
    const running = correcting.get(runId);
    if (running) {
      running.again = true;
      for (const o of observed) running.batches.set(stageKey(o.changeId, o.stage), o.apps);
      return;
    }
    const entry = {
      job: Promise.resolve() as Promise<unknown>,
      again: false,
      batches: new Map(observed.map((o) => [stageKey(o.changeId, o.stage), o.apps])),
    };
    correcting.set(runId, entry);
    entry.job = (async () => {
      try {
        do {
          entry.again = false;
          // The batches told of so far; those told of during this pass go to the next.
          const batches = entry.batches;
          entry.batches = new Map();
          await correctRun(runId, batches);
        } while (entry.again);
      } finally {
        // In the same turn as the last check of `again`: a write after it starts a new job.
        correcting.delete(runId);
      }
    })().catch(() => {});
  }

  /**
   * The change's corrected summary as kept, never computed here (a read writes nothing).
   * Missing or stale (a batch came after it was computed): pending, no summary. A correction
   * this process is computing for the run (after a write) is waited for first, so on one
   * replica every read after a write answers alike; pending is what another replica's write,
   * or a correction that failed, leaves until the background worker computes it.
   */
  async function correctedState(
    runId: string,
    changeId: string,
    stage: string,
  ): Promise<{ hasReports: boolean; pending: boolean; summary: SummaryRow | undefined }> {
    const state = async () => {
      const { hasReports, latestBatch } = await clocks.clockState(runId);
      if (!hasReports) return { hasReports, pending: false, summary: undefined };
      const row = await propagation.changeWithSummary(runId, changeId, 'corrected', stage);
      if (row && !fresh(row, latestBatch)) return { hasReports, pending: true, summary: undefined };
      return { hasReports, pending: false, summary: row?.summary ?? undefined };
    };
    const first = await state();
    const job = correcting.get(runId)?.job;
    if (!first.pending || !job) return first;
    await job;
    return state();
  }

  /** A corrected read of a change whose corrected summary is not computed yet. */
  const correctionPending = (runRef: string, changeId: string) => {
    const error = new AppError(
      409,
      'clock_pending',
      `the corrected latencies of change "${changeId}" in run "${runRef}" are not computed yet (a batch came after them); ask again after Retry-After, or ask for clock=raw`,
      { field: 'clock' },
    );
    error.retryAfterS = 1;
    return error;
  };

  return {
    /**
     * A change's corrected summary at `stage` as kept (after waiting for a correction this
     * process is computing); pending when missing or stale. The tail reads its ranks and
     * clock error.
     */
    correctedRead: (runId: string, changeId: string, stage: string = APPLIED_STAGE) =>
      correctedState(runId, changeId, stage),

    correctionPending,

    /**
     * Computes the corrected summary of each of the run's changes that lacks a fresh one:
     * a step of finishing the run, and the background worker's for runs written since.
     */
    warmCorrected: (runId: string) => correctRun(runId),

    /** After a write to the run: its corrections computed in this process's background. */
    correctAfterWrite,

    /**
     * The background worker's part: the corrections of up to `limit` runs written since
     * theirs were computed (a write whose process stopped, or whose correction failed).
     * Returns how many runs it looked at; a run that fails is tried at a later tick.
     */
    async correctStale(
      limit: number,
      warn?: (error: unknown, runId: string) => void,
    ): Promise<number> {
      const ids = await clocks.staleCorrections(limit);
      for (const runId of ids) {
        try {
          await correctRun(runId);
        } catch (error) {
          warn?.(error, runId);
        }
      }
      return ids.length;
    },
  };
}
export type ClockCorrectionService = ReturnType<typeof clockCorrectionService>;
