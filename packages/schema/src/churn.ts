// A run's propagation over all its changes (a churn test: many changes, each observed by
// every proxy). Three distributions that are easy to confuse, each labelled for what it is:
// per-change rows, the pooled first applications of every change, and the distribution of
// the per-change P99s (the "99th percentile of 99th percentiles" Kubernetes reports).
import { z } from 'zod';
import { percentileList } from './accuracy.ts';
import {
  change,
  DEFAULT_BINS,
  DEFAULT_WITHIN_MS,
  histogramScale,
  percentileValue,
} from './propagation.ts';

/** Percentiles of each change and of the pooled distribution unless asked otherwise. */
export const DEFAULT_CHURN_PERCENTILES = [50, 99] as const;
/** The percentile of each change whose distribution over the changes is given. */
export const PER_CHANGE_PERCENTILE = 99;

export const runPropagationQuery = z.object({
  percentiles: percentileList
    .optional()
    .describe('percentiles of each change and of the pooled distribution (default 50,99)'),
  withinMs: z.coerce.number().nonnegative().default(DEFAULT_WITHIN_MS),
  bins: z.coerce
    .number()
    .int()
    .min(1)
    .max(200)
    .default(DEFAULT_BINS)
    .describe('heatmap columns: bins of time since change, shared by every change'),
  scale: histogramScale.default('linear').describe('heatmap bins: linear or log widths'),
  stage: z
    .string()
    .min(1)
    .max(64)
    .optional()
    .describe('the stage whose first applications are read (default: applied)'),
});
export type RunPropagationQuery = z.infer<typeof runPropagationQuery>;

export const churnChangeRow = change.extend({
  count: z.number().int().describe('distinct proxies that applied the change'),
  missing: z.number().int().nullable().describe('expected minus count; null without expected'),
  minMs: z.number().nullable(),
  maxMs: z.number().nullable(),
  percentiles: z
    .array(percentileValue)
    .describe("nearest rank over this change's first applications (exact)"),
  withinCount: z.number().int(),
  withinFraction: z
    .number()
    .nullable()
    .describe('share of the expected proxies (of count without expected) within withinMs'),
});
export type ChurnChangeRow = z.infer<typeof churnChangeRow>;

export const pooledDistribution = z
  .object({
    label: z.string(),
    changes: z.number().int().describe('changes with at least one first application'),
    count: z.number().int().describe('first applications of all changes together'),
    expected: z
      .number()
      .int()
      .nullable()
      .describe('sum of the expected proxies of every change; null when a change declares none'),
    minMs: z.number().nullable(),
    maxMs: z.number().nullable(),
    meanMs: z.number().nullable().describe('mean of every first application of every change'),
    percentiles: z
      .array(percentileValue)
      .describe('nearest rank over every first application of every change (exact)'),
    withinCount: z.number().int(),
    withinFraction: z
      .number()
      .nullable()
      .describe("withinCount over the sum of each change's denominator (expected, else its count)"),
  })
  .describe(
    'The pooled distribution: every first application of every change in one list, as if all were one change. Its P99 is the latency 99 % of all (change, proxy) applications met.',
  );
export type PooledDistribution = z.infer<typeof pooledDistribution>;

export const perChangePercentileDistribution = z
  .object({
    label: z.string(),
    p: z.number().describe('the percentile taken of each change (99)'),
    count: z.number().int().describe('changes with at least one first application'),
    minMs: z.number().nullable(),
    medianMs: z.number().nullable().describe('nearest rank 50 over the per-change values'),
    p90Ms: z.number().nullable().describe('nearest rank 90 over the per-change values'),
    maxMs: z.number().nullable(),
    values: z
      .array(z.object({ changeId: z.string(), ms: z.number() }))
      .describe('the value of each change, in change order'),
  })
  .describe(
    'The distribution of the per-change P99s: one number per change (its own exact P99), then min, median, P90 and max over those numbers. Not a percentile of the applications: a "P99 of P99s" hides how many applications were slow.',
  );
export type PerChangePercentileDistribution = z.infer<typeof perChangePercentileDistribution>;

export const churnHeatmap = z
  .object({
    label: z.string(),
    scale: histogramScale,
    edgesMs: z
      .array(z.number())
      .describe(
        'bin edges of time since change, shared by every change; bins are [edge_i, edge_i+1), the last closed',
      ),
    rows: z.array(
      z.object({
        changeId: z.string(),
        counts: z.array(z.number().int()).describe('first applications per bin (exact)'),
      }),
    ),
    maxCount: z.number().int().describe('the largest cell: the top of the colour scale'),
  })
  .describe(
    "Counts of first applications per (change, bin of time since that change); the bins span the pooled minimum to maximum. Each row sums to its change's count.",
  );
export type ChurnHeatmap = z.infer<typeof churnHeatmap>;

export const runPropagation = z.object({
  stage: z.string(),
  withinMs: z.number(),
  changes: z.array(churnChangeRow).describe('one row per change, in change time order'),
  pooled: pooledDistribution,
  perChangeP99: perChangePercentileDistribution,
  heatmap: churnHeatmap,
});
export type RunPropagation = z.infer<typeof runPropagation>;
