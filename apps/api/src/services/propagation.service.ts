// Reading a change's propagation from its kept summary: exact, without the observations.
import type { ChangeList, Propagation, PropagationQuery } from '@meshbench/schema';
import { DEFAULT_PERCENTILES } from '@meshbench/schema';
import {
  blocksNeeded,
  computeSummary,
  planSummary,
  type SummaryPlan,
} from '../domain/propagation-stats.ts';
import { SortedLatencies } from '../domain/sorted-latencies.ts';
import { notFound } from '../errors.ts';
import { formatTimestampUs } from '../ingest/timestamps.ts';
import { type PropagationRepository, toFloat64 } from '../repositories/propagation.repository.ts';
import type { RunsRepository } from '../repositories/runs.repository.ts';

export type PropagationRequest = PropagationQuery & { fromMs?: number; toMs?: number };

export function propagationService(deps: {
  runs: RunsRepository;
  propagation: PropagationRepository;
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
      }));
    },

    async propagation(
      runRef: string,
      changeId: string,
      q: PropagationRequest,
    ): Promise<Propagation> {
      const run = await runOf(runRef);
      const row = await propagation.changeWithSummary(run.id, changeId);
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
          await propagation.blocks(run.id, changeId, blocksNeeded(plan, firsts, blockSize)),
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
      const stats = computeSummary(
        req,
        input,
        await load(planSummary(req, input, firsts, blockSize)),
      );
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
      };
    },
  };
}
export type PropagationService = ReturnType<typeof propagationService>;
