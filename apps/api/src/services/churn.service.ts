// A run's propagation over all its changes (a churn test): per-change rows, the pooled
// distribution, the distribution of the per-change P99s and the heatmap, exact, from the
// kept latency blocks of every change read in one go.
import {
  DEFAULT_CHURN_PERCENTILES,
  PER_CHANGE_PERCENTILE,
  type PercentileValue,
  type RunPropagation,
  type RunPropagationQuery,
} from '@meshbench/schema';
import {
  churnHeatmap,
  type LatencyStats,
  latencyStats,
  nearestRankOf,
  PooledSorted,
  summarizeValues,
} from '../domain/churn.ts';
import { notFound } from '../errors.ts';
import { formatTimestampUs } from '../ingest/timestamps.ts';
import {
  DEFAULT_STAGE,
  type PropagationRepository,
} from '../repositories/propagation.repository.ts';
import type { RunsRepository } from '../repositories/runs.repository.ts';

export const CHURN_LABELS = {
  pooled: 'pooled: every first application of every change together',
  perChangeP99: 'distribution of per-change P99s (one value per change; not pooled)',
  heatmap: 'first applications per change and time since that change',
} as const;

const ms = (us: number | null) => (us === null ? null : us / 1000);
const percentilesMs = (s: LatencyStats): PercentileValue[] =>
  s.percentiles.map(({ p, us }) => ({ p, ms: us / 1000, exact: true, method: 'raw' as const }));

export function churnService(deps: { runs: RunsRepository; propagation: PropagationRepository }) {
  const { runs, propagation } = deps;
  const service = {
    /**
     * A run of several changes in brief, as its headline says it: the pooled P99 and share
     * within `withinMs` over every change, and the change with the highest own P99 (the
     * worst). Null when the run has no change.
     */
    async pooledHeadline(runRef: string, withinMs: number) {
      const all = await service.runPropagation(runRef, {
        percentiles: [50, 99],
        withinMs,
        bins: 1,
        scale: 'linear',
      });
      if (all.changes.length === 0) return null;
      let worst: { changeId: string; p99Ms: number } | null = null;
      for (const v of all.perChangeP99.values)
        if (!worst || v.ms > worst.p99Ms) worst = { changeId: v.changeId, p99Ms: v.ms };
      return {
        summary: 'pooled' as const,
        changes: all.changes.length,
        changeId: null,
        count: all.pooled.count,
        p99: all.pooled.percentiles.find((q) => q.p === 99) ?? null,
        withinMs,
        withinFraction: all.pooled.withinFraction,
        worst,
        expected: all.pooled.expected,
        p50: all.pooled.percentiles.find((q) => q.p === 50) ?? null,
        lastMs: all.pooled.maxMs,
      };
    },

    async runPropagation(runRef: string, q: RunPropagationQuery): Promise<RunPropagation> {
      const run = await runs.find(runRef);
      if (!run) throw notFound(`run "${runRef}"`);
      const stage = q.stage ?? DEFAULT_STAGE;
      const percentiles = q.percentiles ?? [...DEFAULT_CHURN_PERCENTILES];
      const withinUs = q.withinMs * 1000;
      const [changes, latencies] = await Promise.all([
        propagation.changesWithStage(run.id, stage),
        propagation.runLatencies(run.id, stage),
      ]);
      const empty = new Float64Array(0);
      const sortedOf = changes.map((c) => latencies.get(c.id) ?? empty);
      let sumUs = 0;
      for (const sorted of sortedOf) for (const v of sorted) sumUs += v;

      let denominator = 0;
      // The pooled expected is a sum only when every change declares its own.
      const expectedSum = changes.every((c) => c.expected !== null)
        ? changes.reduce((sum, c) => sum + (c.expected as number), 0)
        : null;
      const rows = changes.map((c, i) => {
        const sorted = sortedOf[i] as Float64Array;
        const n = sorted.length;
        denominator += c.expected ?? n;
        const s = latencyStats(sorted, percentiles, withinUs, c.expected ?? n);
        return {
          id: c.id,
          kind: c.kind,
          target: c.target,
          action: c.action,
          at: formatTimestampUs(c.atUs),
          expected: c.expected,
          count: n,
          missing: c.expected === null ? null : Math.max(0, c.expected - n),
          minMs: ms(s.minUs),
          maxMs: ms(s.maxUs),
          percentiles: percentilesMs(s),
          withinCount: s.withinCount,
          withinFraction: s.withinFraction,
        };
      });

      const pooledStats = latencyStats(
        new PooledSorted(sortedOf),
        percentiles,
        withinUs,
        denominator,
      );
      const observed = changes.flatMap((c, i) => {
        const v = nearestRankOf(sortedOf[i] as Float64Array, PER_CHANGE_PERCENTILE);
        return v === null ? [] : [{ changeId: c.id, ms: v / 1000 }];
      });
      const perChange = summarizeValues(observed.map((v) => v.ms));
      const heatmap = churnHeatmap(sortedOf, q.bins, q.scale);

      return {
        stage,
        withinMs: q.withinMs,
        changes: rows,
        pooled: {
          label: CHURN_LABELS.pooled,
          changes: observed.length,
          count: pooledStats.count,
          expected: changes.length === 0 ? null : expectedSum,
          minMs: ms(pooledStats.minUs),
          maxMs: ms(pooledStats.maxUs),
          meanMs: pooledStats.count > 0 ? sumUs / pooledStats.count / 1000 : null,
          percentiles: percentilesMs(pooledStats),
          withinCount: pooledStats.withinCount,
          withinFraction: pooledStats.withinFraction,
        },
        perChangeP99: {
          label: CHURN_LABELS.perChangeP99,
          p: PER_CHANGE_PERCENTILE,
          count: perChange.count,
          minMs: perChange.min,
          medianMs: perChange.median,
          p90Ms: perChange.p90,
          maxMs: perChange.max,
          values: observed,
        },
        heatmap: {
          label: CHURN_LABELS.heatmap,
          scale: q.scale,
          edgesMs: heatmap.edgesUs.map((us) => us / 1000),
          rows: changes.map((c, i) => ({ changeId: c.id, counts: heatmap.counts[i] as number[] })),
          maxCount: heatmap.maxCount,
        },
      };
    },
  };
  return service;
}
export type ChurnService = ReturnType<typeof churnService>;
