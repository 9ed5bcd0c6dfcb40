// Reading a change's propagation from its kept summary (one per stage, raw or clock
// corrected): exact, without the observations; and the per-proxy gap between two stages,
// from the observations.
import type {
  ChangeList,
  ClockBasis,
  CorrectedBrief,
  PercentileValue,
  Propagation,
  PropagationClock,
  PropagationQuery,
  RunClocks,
  StageCount,
  StageGap,
  StageGapQuery,
} from '@meshbench/schema';
import {
  APPLIED_STAGE,
  COVERAGE_PERCENTS,
  compareStages,
  DEFAULT_PERCENTILES,
} from '@meshbench/schema';
import { correctLatencies, nodeClocks } from '../domain/clock-correction.ts';
import { coverage, coverageRanks } from '../domain/coverage.ts';
import { latencySet } from '../domain/first-applications.ts';
import {
  blocksNeeded,
  computeSummary,
  nearestRank,
  planSummary,
  type SummaryPlan,
} from '../domain/propagation-stats.ts';
import { SortedLatencies, splitBlocks } from '../domain/sorted-latencies.ts';
import { AppError, notFound } from '../errors.ts';
import { formatTimestampUs } from '../ingest/timestamps.ts';
import type { ClockRepository } from '../repositories/clock.repository.ts';
import { type PropagationRepository, toFloat64 } from '../repositories/propagation.repository.ts';
import type { RunsRepository } from '../repositories/runs.repository.ts';
import type { StagesRepository } from '../repositories/stages.repository.ts';
import { LATENCY_BLOCK_SIZE } from './ingest.service.ts';

export type PropagationRequest = Omit<PropagationQuery, 'clock'> & {
  clock?: ClockBasis;
  fromMs?: number;
  toMs?: number;
};

type SummaryRow = NonNullable<
  Awaited<ReturnType<PropagationRepository['changeWithSummary']>>
>['summary'];

/** A change's stages in the order a change reaches them. */
function stageList(rows: { stage: string; count: number; observations: number }[]): StageCount[] {
  return rows
    .map(({ stage, count, observations }) => ({ stage, count, observations }))
    .sort((a, b) => compareStages(a.stage, b.stage));
}

/**
 * The stage a summary shows when none is asked for: `applied`, as before stages existed,
 * unless the change has no applied observations but other stages; then the last of them.
 */
export function defaultStage(stages: readonly StageCount[]): string {
  if (stages.length === 0 || stages.some((s) => s.stage === APPLIED_STAGE)) return APPLIED_STAGE;
  return (stages[stages.length - 1] as StageCount).stage;
}

export function propagationService(deps: {
  runs: RunsRepository;
  propagation: PropagationRepository;
  clocks: ClockRepository;
  /** Reads across stages (the gap); absent where only summaries are read. */
  stages?: StagesRepository;
}) {
  const { runs, propagation, clocks } = deps;

  /**
   * Computes a change's corrected summary from its raw first applications and the run's
   * clock reports, in one transaction under the locks batches take, and keeps it.
   */
  async function computeCorrected(runId: string, changeId: string, stage: string) {
    await clocks.inCorrection(runId, changeId, stage, async (store) => {
      // Everything read under the locks: what batches committed before them, and no more.
      const inputBatch = await store.latestBatch();
      const change = await store.change();
      if (!change) return;
      const firsts = await store.firstApplications();
      const corrected = correctLatencies(firsts, change.atUs, nodeClocks(await store.reports()));
      const set = latencySet(corrected.latencies, Math.max(change.observations, firsts.length));
      const blocks = splitBlocks(set.sorted, LATENCY_BLOCK_SIZE);
      const n = set.sorted.length;
      await store.save({
        count: n,
        observations: set.observations,
        repeats: set.repeats,
        beforeChange: set.beforeChange,
        minUs: n > 0 ? (set.sorted[0] as number) : null,
        maxUs: n > 0 ? (set.sorted[n - 1] as number) : null,
        sumUs: set.sumUs,
        blockSize: LATENCY_BLOCK_SIZE,
        blockFirsts: new Float64Array(blocks.map((b) => b[0] as number)),
        blocks,
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
  async function correctIfStale(runId: string, changeId: string, stage: string) {
    const { latestBatch } = await clocks.clockState(runId);
    const row = await propagation.changeWithSummary(runId, changeId, 'corrected', stage);
    if (row && !fresh(row, latestBatch)) await computeCorrected(runId, changeId, stage);
  }

  /**
   * Computes the corrected summary of each of the run's changes that lacks a fresh one;
   * returns how many it computed.
   */
  async function correctRun(runId: string): Promise<number> {
    if (!(await clocks.clockState(runId)).hasReports) return 0;
    let computed = 0;
    for (const { changeId: id, stage } of await propagation.stagesOf(runId)) {
      const before = await propagation.changeWithSummary(runId, id, 'corrected', stage);
      await correctIfStale(runId, id, stage);
      const after = await propagation.changeWithSummary(runId, id, 'corrected', stage);
      if (before?.summary?.computedAtUs !== after?.summary?.computedAtUs) computed++;
    }
    return computed;
  }

  /**
   * Corrections this process is computing after a write, by run: the work, and whether
   * another write came while it ran (then it runs once more). A read never starts one.
   */
  const correcting = new Map<string, { job: Promise<unknown>; again: boolean }>();

  /**
   * After a write to the run: its corrected summaries computed in the background of this
   * process (a failure, or a process that stops, is left to the background worker).
   */
  function correctAfterWrite(runId: string): void {
    const running = correcting.get(runId);
    if (running) {
      running.again = true;
      return;
    }
    const entry = { job: Promise.resolve() as Promise<unknown>, again: false };
    correcting.set(runId, entry);
    entry.job = (async () => {
      try {
        do {
          entry.again = false;
          await correctRun(runId);
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

  /** Corrected percentiles carry their bound: the largest clock error of any latency. */
  const withClockError = (ps: PercentileValue[], errorUs: number): PercentileValue[] =>
    ps.map((p) => ({
      ...p,
      exact: false,
      method: 'clock-corrected' as const,
      clockErrorMs: errorUs / 1000,
      lower: p.ms - errorUs / 1000,
      upper: p.ms + errorUs / 1000,
    }));

  /** A few ranks and one bound of a kept summary: the corrected figures in brief. */
  async function brief(
    runId: string,
    changeId: string,
    stage: string,
    summary: NonNullable<SummaryRow>,
    percentiles: readonly number[],
    withinMs: number,
    denominator: number | null,
  ): Promise<CorrectedBrief> {
    const n = summary.count;
    const firsts = toFloat64(summary.blockFirsts);
    const plan = {
      ranks: n > 0 ? percentiles.map((p) => nearestRank(p, n)) : [],
      bounds: n > 0 ? [{ x: withinMs * 1000, strict: false }] : [],
    };
    const sample = new SortedLatencies(
      n,
      summary.blockSize,
      firsts,
      await propagation.blocks(
        runId,
        changeId,
        blocksNeeded(plan, firsts, summary.blockSize),
        'corrected',
        stage,
      ),
    );
    const withinCount = n > 0 ? sample.countBelow(withinMs * 1000, false) : 0;
    const d = denominator ?? n;
    return {
      percentiles: withClockError(
        n > 0 ? percentiles.map((p) => ({ p, ms: sample.at(nearestRank(p, n)) / 1000 })) : [],
        summary.clockMaxErrorUs ?? 0,
      ),
      withinCount,
      withinFraction: d > 0 ? withinCount / d : null,
      beforeChange: summary.beforeChange,
      minMs: summary.minUs === null ? null : summary.minUs / 1000,
      maxMs: summary.maxUs === null ? null : summary.maxUs / 1000,
    };
  }

  const runOf = async (runRef: string) => {
    const run = await runs.find(runRef);
    if (!run) throw notFound(`run "${runRef}"`);
    return run;
  };

  return {
    async changes(runRef: string): Promise<ChangeList> {
      const run = await runOf(runRef);
      const rows = await propagation.changesOf(run.id);
      const stagesByChange = new Map<
        string,
        { stage: string; count: number; observations: number }[]
      >();
      for (const s of await propagation.stagesOf(run.id)) {
        const list = stagesByChange.get(s.changeId) ?? [];
        list.push(s);
        stagesByChange.set(s.changeId, list);
      }
      return rows.map((r) => ({
        id: r.id,
        kind: r.kind,
        target: r.target,
        action: r.action,
        at: formatTimestampUs(r.atUs),
        expected: r.expected,
        count: r.count ?? 0,
        repeats: r.repeats ?? 0,
        beforeChange: r.beforeChange ?? 0,
        stages: stageList(stagesByChange.get(r.id) ?? []),
      }));
    },

    async propagation(
      runRef: string,
      changeId: string,
      q: PropagationRequest,
    ): Promise<Propagation> {
      const run = await runOf(runRef);
      const basis = q.clock ?? 'raw';
      const stages = stageList(await propagation.stagesOf(run.id, changeId));
      const stage = q.stage ?? defaultStage(stages);
      const rawRow = await propagation.changeWithSummary(run.id, changeId, 'raw', stage);
      if (!rawRow) throw notFound(`change "${changeId}" in run "${runRef}"`);
      const state = await correctedState(run.id, changeId, stage);
      const corrected = state.summary;
      if (basis === 'corrected' && state.pending) throw correctionPending(runRef, changeId);
      if (basis === 'corrected' && !corrected) {
        throw new AppError(
          409,
          'no_clock_data',
          `run "${runRef}" has no clock reports, so there are no corrected latencies; post "clock" events for its nodes, or ask for clock=raw`,
          { field: 'clock' },
        );
      }
      const { change } = rawRow;
      const summary = basis === 'corrected' ? corrected : rawRow.summary;
      const n = summary?.count ?? 0;
      const expected = change.expected;
      const input = {
        n,
        minUs: summary?.minUs ?? null,
        maxUs: summary?.maxUs ?? null,
        denominator: expected ?? n,
      };
      const firsts = summary ? toFloat64(summary.blockFirsts) : new Float64Array(0);
      const blockSize = summary?.blockSize ?? 1;
      const load = async (plan: SummaryPlan) =>
        new SortedLatencies(
          n,
          blockSize,
          firsts,
          await propagation.blocks(
            run.id,
            changeId,
            blocksNeeded(plan, firsts, blockSize),
            basis,
            stage,
          ),
        );
      // Log bins over skewed latencies start at the smallest positive one: two small lookups.
      let logStartUs: number | undefined;
      if (q.scale === 'log' && q.fromMs === undefined && input.minUs !== null && input.minUs <= 0) {
        const atOrBelowZero = (
          await load({ ranks: [], bounds: [{ x: 0, strict: false }] })
        ).countBelow(0, false);
        if (atOrBelowZero < n)
          logStartUs = (await load({ ranks: [atOrBelowZero + 1], bounds: [] })).at(
            atOrBelowZero + 1,
          );
      }
      const req = { ...q, percentiles: q.percentiles ?? [...DEFAULT_PERCENTILES], logStartUs };
      const plan = planSummary(req, input, firsts, blockSize);
      // Coverage: of the expected proxies, or of those seen when the change declares none.
      const base = input.denominator;
      plan.ranks.push(...coverageRanks(COVERAGE_PERCENTS, base, n));
      const sample = await load(plan);
      const stats = computeSummary(req, input, sample);
      const clock: PropagationClock = {
        basis,
        available: state.hasReports,
        pending: state.pending,
        maxClockErrorMs: corrected ? (corrected.clockMaxErrorUs ?? 0) / 1000 : null,
        nodes: corrected ? (corrected.clockNodes ?? 0) + (corrected.uncorrectedNodes ?? 0) : null,
        correctedNodes: corrected ? (corrected.clockNodes ?? 0) : null,
        uncorrectedNodes: corrected ? (corrected.uncorrectedNodes ?? 0) : null,
        corrected: !corrected
          ? null
          : basis === 'corrected'
            ? {
                // The answer itself is corrected: its own figures, no second read.
                percentiles: withClockError(stats.percentiles, corrected.clockMaxErrorUs ?? 0),
                withinCount: stats.withinCount,
                withinFraction: stats.withinFraction,
                beforeChange: corrected.beforeChange,
                minMs: input.minUs === null ? null : input.minUs / 1000,
                maxMs: input.maxUs === null ? null : input.maxUs / 1000,
              }
            : await brief(
                run.id,
                changeId,
                stage,
                corrected,
                req.percentiles,
                q.withinMs,
                expected,
              ),
      };
      if (basis === 'corrected')
        stats.percentiles = withClockError(stats.percentiles, corrected?.clockMaxErrorUs ?? 0);
      return {
        change: {
          id: change.id,
          kind: change.kind,
          target: change.target,
          action: change.action,
          at: formatTimestampUs(change.atUs),
          expected,
        },
        count: n,
        observations: summary?.observations ?? 0,
        expected,
        missing: expected === null ? null : Math.max(0, expected - n),
        beforeChange: summary?.beforeChange ?? 0,
        repeats: summary?.repeats ?? 0,
        minMs: input.minUs === null ? null : input.minUs / 1000,
        maxMs: input.maxUs === null ? null : input.maxUs / 1000,
        meanMs: summary && n > 0 ? summary.sumUs / n / 1000 : null,
        percentiles: stats.percentiles,
        withinMs: q.withinMs,
        withinCount: stats.withinCount,
        withinFraction: stats.withinFraction,
        scale: q.scale,
        histogram: stats.histogram,
        underflow: stats.underflow,
        overflow: stats.overflow,
        cdf: stats.cdf,
        computedAt: summary ? formatTimestampUs(summary.computedAtUs) : null,
        stage,
        stages,
        coverage: {
          of: expected === null ? 'observed' : 'expected',
          base,
          exact: true,
          points: coverage(COVERAGE_PERCENTS, base, n, (r) => sample.at(r)),
        },
        clock,
      };
    },

    /**
     * The per-proxy gap between two stages of a change: first `to` minus first `from`, over
     * the proxies seen at both; exact nearest rank over every such proxy.
     */
    async stageGap(runRef: string, changeId: string, q: StageGapQuery): Promise<StageGap> {
      const run = await runOf(runRef);
      if (!(await propagation.changeWithSummary(run.id, changeId)))
        throw notFound(`change "${changeId}" in run "${runRef}"`);
      const stages = stageList(await propagation.stagesOf(run.id, changeId));
      const from = q.from ?? stages[0]?.stage;
      const to = q.to ?? stages[stages.length - 1]?.stage;
      if (from === undefined || to === undefined || from === to) {
        const seen = stages.map((s) => s.stage).join(', ') || 'none';
        throw new AppError(
          400,
          'invalid_request',
          from !== undefined && from === to && q.from !== undefined && q.to !== undefined
            ? `from and to are both "${from}"; a gap is between two stages`
            : `change "${changeId}" was observed at fewer than two stages (${seen}); name the stages as from and to`,
          { field: q.from === undefined ? 'from' : 'to' },
        );
      }
      if (!deps.stages) throw new Error('the stage gap needs the stages repository');
      const gaps = await deps.stages.stageGaps(run.id, changeId, from, to);
      const sorted = gaps.gapsUs.sort();
      const n = sorted.length;
      let sumUs = 0;
      let negative = 0;
      for (const g of sorted) {
        sumUs += g;
        if (g < 0) negative++;
      }
      const minUs = n > 0 ? (sorted[0] as number) : null;
      const maxUs = n > 0 ? (sorted[n - 1] as number) : null;
      const stats = computeSummary(
        {
          percentiles: q.percentiles ?? [...DEFAULT_PERCENTILES],
          withinMs: 0,
          bins: q.bins,
          scale: 'linear',
          fromMs: q.fromMs,
          toMs: q.toMs,
          cdfPoints: 1,
        },
        { n, minUs, maxUs, denominator: n },
        SortedLatencies.fromSorted(sorted),
      );
      return {
        change: changeId,
        from,
        to,
        count: n,
        onlyFrom: gaps.onlyFrom,
        onlyTo: gaps.onlyTo,
        negative,
        minMs: minUs === null ? null : minUs / 1000,
        maxMs: maxUs === null ? null : maxUs / 1000,
        meanMs: n > 0 ? sumUs / n / 1000 : null,
        percentiles: stats.percentiles,
        histogram: stats.histogram,
        underflow: stats.underflow,
        overflow: stats.overflow,
        stages,
      };
    },

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
    warmCorrected: correctRun,

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

    /** What the run's clock reports, and its observations before their changes, say. */
    async clocks(runRef: string): Promise<RunClocks> {
      const run = await runOf(runRef);
      const nodes = await clocks.nodeReports(run.id);
      const reported = new Set(nodes.map((n) => n.node));
      const behind = await clocks.provablyBehind(run.id);
      behind.sort((a, b) => b.behindUs - a.behindUs || a.node.localeCompare(b.node));
      return {
        nodes: nodes.map((n) => ({
          node: n.node,
          reports: n.reports,
          minOffsetMs: n.minOffsetUs / 1000,
          maxOffsetMs: n.maxOffsetUs / 1000,
          maxErrorMs: n.maxErrorUs / 1000,
          firstAt: formatTimestampUs(n.firstUs),
          lastAt: formatTimestampUs(n.lastUs),
        })),
        provablyBehind: behind.map((b) => ({
          node: b.node,
          behindByAtLeastMs: b.behindUs / 1000,
          change: b.change,
          proxy: b.proxy,
          hasReports: reported.has(b.node),
        })),
      };
    },
  };
}
export type PropagationService = ReturnType<typeof propagationService>;
