// The propagation summary of one change: how fast the proxies applied it.
import { z } from 'zod';
import { percentileAccuracy, percentileList } from './accuracy.ts';

export const DEFAULT_PERCENTILES = [50, 90, 95, 96, 99, 99.9] as const;
export const DEFAULT_WITHIN_MS = 1000;
export const DEFAULT_BINS = 60;
export const histogramScale = z.enum(['linear', 'log']);
export type HistogramScale = z.infer<typeof histogramScale>;
export const clockBasis = z
  .enum(['raw', 'corrected'])
  .describe(
    "raw: each proxy's own timestamps; corrected: each node's clock offset (from its clock reports) taken out",
  );
export type ClockBasis = z.infer<typeof clockBasis>;

export const propagationQuery = z.object({
  percentiles: percentileList.optional(),
  withinMs: z.coerce.number().nonnegative().default(DEFAULT_WITHIN_MS),
  bins: z.coerce.number().int().min(1).max(1000).default(DEFAULT_BINS),
  scale: histogramScale.default('linear'),
  fromMs: z.coerce.number().optional().describe('histogram range start (default: the minimum)'),
  toMs: z.coerce.number().optional().describe('histogram range end (default: the maximum)'),
  clock: clockBasis
    .default('raw')
    .describe(
      'raw (default) or corrected: latencies with node clock offsets taken out; corrected on a run without clock reports is a 409',
    ),
});
export type PropagationQuery = z.infer<typeof propagationQuery>;

/** A percentile in milliseconds, with how it was obtained (see accuracy.ts). */
export const percentileValue = z
  .object({ p: z.number(), ms: z.number() })
  .extend(percentileAccuracy.partial().shape);
export type PercentileValue = z.infer<typeof percentileValue>;

export const histogramBin = z.object({
  fromMs: z.number(),
  toMs: z.number(),
  count: z.number().int(),
});
export type HistogramBin = z.infer<typeof histogramBin>;

export const cdfPoint = z.object({ ms: z.number(), fraction: z.number() });
export type CdfPoint = z.infer<typeof cdfPoint>;

export const change = z.object({
  id: z.string(),
  kind: z.string(),
  target: z.string(),
  action: z.string(),
  at: z.string(),
  expected: z.number().int().nullable(),
});
export type Change = z.infer<typeof change>;

/** The corrected latencies in brief, beside a raw answer: the page shows both at once. */
export const correctedBrief = z.object({
  percentiles: z
    .array(percentileValue)
    .describe('nearest rank over corrected latencies, ± clockErrorMs'),
  withinCount: z.number().int(),
  withinFraction: z.number().nullable(),
  beforeChange: z.number().int().describe('corrected latencies still below zero'),
  minMs: z.number().nullable(),
  maxMs: z.number().nullable(),
});
export type CorrectedBrief = z.infer<typeof correctedBrief>;

export const propagationClock = z.object({
  basis: clockBasis.describe('the latencies this answer is of'),
  available: z.boolean().describe('the run has clock reports, so a corrected summary exists'),
  maxClockErrorMs: z
    .number()
    .nullable()
    .describe(
      'the largest clock error of any corrected latency: every corrected percentile is within it of the truth (for corrected nodes); null without clock data',
    ),
  nodes: z
    .number()
    .int()
    .nullable()
    .describe("distinct nodes among the change's first applications (null without clock data)"),
  correctedNodes: z.number().int().nullable().describe('of them, nodes with clock reports'),
  uncorrectedNodes: z
    .number()
    .int()
    .nullable()
    .describe('of them, nodes without clock reports: their latencies stay raw'),
  corrected: correctedBrief
    .nullable()
    .describe('on a raw answer, the corrected figures in brief (null without clock data)'),
});
export type PropagationClock = z.infer<typeof propagationClock>;

export const propagation = z.object({
  change,
  count: z.number().int().describe('distinct proxies that applied the change'),
  observations: z.number().int().describe('observations stored, repeats included'),
  expected: z.number().int().nullable(),
  missing: z.number().int().nullable().describe('expected minus count; null without expected'),
  beforeChange: z.number().int().describe('first applications earlier than the change (skew)'),
  repeats: z.number().int().describe('observations after a proxy first applied the change'),
  minMs: z.number().nullable(),
  maxMs: z.number().nullable(),
  meanMs: z.number().nullable(),
  percentiles: z.array(percentileValue),
  withinMs: z.number(),
  withinCount: z.number().int(),
  withinFraction: z.number().nullable(),
  scale: histogramScale,
  histogram: z.array(histogramBin),
  underflow: z.number().int().describe('first applications below the histogram range'),
  overflow: z.number().int().describe('first applications above the histogram range'),
  cdf: z.array(cdfPoint),
  computedAt: z.string().nullable(),
  clock: propagationClock.optional().describe('node clocks: what is corrected and by how much'),
});
export type Propagation = z.infer<typeof propagation>;

export const changeList = z.array(
  change.extend({
    count: z.number().int(),
    repeats: z.number().int(),
    beforeChange: z.number().int(),
  }),
);
export type ChangeList = z.infer<typeof changeList>;

/** `GET /runs/{id}/clocks`: what a run's clock reports and observations say of node clocks. */
export const runClocks = z.object({
  nodes: z
    .array(
      z.object({
        node: z.string(),
        reports: z.number().int(),
        minOffsetMs: z.number().describe("node's clock minus the reference; positive: ahead"),
        maxOffsetMs: z.number(),
        maxErrorMs: z.number(),
        firstAt: z.string(),
        lastAt: z.string(),
      }),
    )
    .describe('nodes with clock reports'),
  provablyBehind: z
    .array(
      z.object({
        node: z.string(),
        behindByAtLeastMs: z
          .number()
          .describe("how far before its change the node's clock put a first application"),
        change: z.string(),
        proxy: z.string(),
        hasReports: z.boolean(),
      }),
    )
    .describe(
      'nodes whose raw timestamps put an application before its change: their clocks were behind by at least this much (no clock data needed); largest first',
    ),
});
export type RunClocks = z.infer<typeof runClocks>;
