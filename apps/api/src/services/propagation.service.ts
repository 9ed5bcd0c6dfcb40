// Reading a change's propagation from its kept summary (one per stage): exact, without the
// observations; and the per-proxy gap between two stages, from the observations.
import type {
  ChangeList,
  Propagation,
  PropagationQuery,
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
import { coverage, coverageRanks } from '../domain/coverage.ts';
import {
  blocksNeeded,
  computeSummary,
  planSummary,
  type SummaryPlan,
} from '../domain/propagation-stats.ts';
import { SortedLatencies } from '../domain/sorted-latencies.ts';
import { AppError, notFound } from '../errors.ts';
import { formatTimestampUs } from '../ingest/timestamps.ts';
import { type PropagationRepository, toFloat64 } from '../repositories/propagation.repository.ts';
import type { RunsRepository } from '../repositories/runs.repository.ts';
import type { StagesRepository } from '../repositories/stages.repository.ts';

export type PropagationRequest = PropagationQuery & { fromMs?: number; toMs?: number };

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
  /** Reads across stages (the gap); absent where only summaries are read. */
  stages?: StagesRepository;
}) {
  const { runs, propagation } = deps;

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
      const stages = stageList(await propagation.stagesOf(run.id, changeId));
      const stage = q.stage ?? defaultStage(stages);
      const row = await propagation.changeWithSummary(run.id, changeId, stage);
      if (!row) throw notFound(`change "${changeId}" in run "${runRef}"`);
      const { change, summary } = row;
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
          await propagation.blocks(run.id, changeId, blocksNeeded(plan, firsts, blockSize), stage),
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
  };
}
export type PropagationService = ReturnType<typeof propagationService>;
