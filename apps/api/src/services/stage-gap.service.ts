// The per-proxy gap between two stages of a change (first `to` minus first `from`), from
// the observations.
import type { StageGap, StageGapQuery } from '@meshbench/schema';
import { DEFAULT_PERCENTILES } from '@meshbench/schema';
import { stageList } from '../domain/change-stages.ts';
import { computeSummary } from '../domain/propagation-stats.ts';
import { SortedLatencies } from '../domain/sorted-latencies.ts';
import { AppError, notFound } from '../errors.ts';
import type { PropagationRepository } from '../repositories/propagation.repository.ts';
import type { StagesRepository } from '../repositories/stages.repository.ts';
import { type RunLookup, runOf } from './run-lookup.ts';

export function stageGapService(deps: {
  runs: RunLookup;
  propagation: Pick<PropagationRepository, 'changeWithSummary' | 'stagesOf'>;
  stages: Pick<StagesRepository, 'stageGaps'>;
}) {
  const { propagation } = deps;
  return {
    /**
     * The per-proxy gap between two stages of a change: first `to` minus first `from`, over
     * the proxies seen at both; exact nearest rank over every such proxy.
     */
    async stageGap(runRef: string, changeId: string, q: StageGapQuery): Promise<StageGap> {
      const run = await runOf(deps.runs, runRef);
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
export type StageGapService = ReturnType<typeof stageGapService>;
