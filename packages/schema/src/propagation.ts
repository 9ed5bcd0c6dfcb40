// The propagation summary of one change: how fast the proxies applied it.
import { z } from 'zod';
import { percentileAccuracy, percentileList } from './accuracy.ts';

export const DEFAULT_PERCENTILES = [50, 90, 95, 96, 99, 99.9] as const;
export const DEFAULT_WITHIN_MS = 1000;
export const DEFAULT_BINS = 60;
export const histogramScale = z.enum(['linear', 'log']);
export type HistogramScale = z.infer<typeof histogramScale>;

export const histogramRangeChoice = z.enum(['data', 'auto']);
export type HistogramRangeChoice = z.infer<typeof histogramRangeChoice>;
export const clockBasis = z
  .enum(['raw', 'corrected'])
  .describe(
    "raw: each proxy's own timestamps; corrected: each node's clock offset (from its clock reports) taken out",
  );
export type ClockBasis = z.infer<typeof clockBasis>;

/** The stage an observation without one is of (as `DEFAULT_STAGE` in @meshbench/db). */
export const APPLIED_STAGE = 'applied';
/** The documented stages, in the order a change reaches them; others sort after, by name. */
export const CONVENTIONAL_STAGES = ['received', 'acked', 'applied', 'serving'] as const;

/** Stages in the order a change reaches them: the conventional ones first, then by name. */
export function compareStages(a: string, b: string): number {
  const order = CONVENTIONAL_STAGES as readonly string[];
  const ia = order.indexOf(a);
  const ib = order.indexOf(b);
  if (ia !== -1 || ib !== -1)
    return (ia === -1 ? order.length : ia) - (ib === -1 ? order.length : ib);
  return a < b ? -1 : a > b ? 1 : 0;
}

export const stageName = z
  .string()
  .min(1)
  .max(100)
  .refine((s) => !s.includes('\u0000'), 'a stage holds no NUL character');

/** The coverage points every summary gives: time until this % of the proxies. */
export const COVERAGE_PERCENTS = [50, 90, 96.6, 99, 100] as const;

export const propagationQuery = z.object({
  stage: stageName
    .optional()
    .describe(
      'the stage to summarise (default `applied`; a change with no `applied` observations but other stages shows the last of them in the order received, acked, applied, serving, others by name; the answer names it)',
    ),
  percentiles: percentileList.optional(),
  withinMs: z.coerce.number().nonnegative().default(DEFAULT_WITHIN_MS),
  bins: z.coerce.number().int().min(1).max(1000).default(DEFAULT_BINS),
  scale: histogramScale.default('linear'),
  fromMs: z.coerce.number().optional().describe('histogram range start (default: the minimum)'),
  toMs: z.coerce.number().optional().describe('histogram range end (default: the maximum)'),
  range: histogramRangeChoice
    .default('data')
    .describe(
      "how the histogram range is chosen when fromMs and toMs are not given: `data` (default), the minimum to the maximum; `auto`, the range the run page draws, from this answer's own percentiles: linear, 0 to P99 rounded up (with a long tail, to the largest percentile within 4 x P90), reaching withinMs; log, from the decade of the smallest positive latency when some are at or below 0. One request then gives the tables and the histogram as drawn.",
    ),
  clock: clockBasis
    .default('raw')
    .describe(
      'raw (default) or corrected: latencies with node clock offsets taken out; corrected on a run without clock reports is a 409 no_clock_data, and while its corrected summary is not computed yet a 409 clock_pending',
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

export const stageCount = z.object({
  stage: z.string(),
  count: z.number().int().describe('distinct proxies seen at this stage'),
  observations: z.number().int().describe('observations of this stage, repeats included'),
});
export type StageCount = z.infer<typeof stageCount>;

export const coveragePoint = z.object({
  percent: z.number(),
  proxies: z.number().int().describe('the proxies that make this percent: ceil(percent x base)'),
  ms: z
    .number()
    .nullable()
    .describe(
      'latency of the proxy at that rank (exact nearest rank over the first applications); null when fewer proxies got there',
    ),
});
export type CoveragePoint = z.infer<typeof coveragePoint>;

export const coverage = z.object({
  of: z
    .enum(['expected', 'observed'])
    .describe(
      'the base of the percents: the expected proxies, or the observed ones when the change declares none',
    ),
  base: z.number().int(),
  exact: z.boolean().describe('true: nearest rank over every first observation of the stage'),
  points: z.array(coveragePoint),
});
export type Coverage = z.infer<typeof coverage>;

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
  pending: z
    .boolean()
    .optional()
    .describe(
      'on a raw answer: the corrected summary is not computed for the latest events yet (it is computed after each batch, at the finish and by the background worker, never by a read; a read waits for a computation in progress on its replica), so `corrected` is null for now and ?clock=corrected answers 409 clock_pending with Retry-After',
    ),
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
  histogramRange: z
    .enum(['asked', 'data', 'auto', 'none'])
    .optional()
    .describe(
      'how the histogram range was chosen: `asked`, fromMs or toMs given; `data`, the minimum to the maximum; `auto`, chosen as `?range=auto` says; `none`, `?range=auto` found nothing to draw (no first applications, or every percentile at or below 0): no bins, nothing counted under or over',
    ),
  histogram: z.array(histogramBin),
  underflow: z.number().int().describe('first applications below the histogram range'),
  overflow: z.number().int().describe('first applications above the histogram range'),
  cdf: z.array(cdfPoint),
  computedAt: z.string().nullable(),
  stage: z
    .string()
    .describe(
      'the stage these numbers are of (`applied` unless asked for, or absent from the change)',
    ),
  stages: z
    .array(stageCount)
    .describe('every stage the change was observed at, in the order a change reaches them'),
  coverage: coverage.describe(
    'time until 50 / 90 / 96.6 / 99 / 100 % of the proxies reached the stage',
  ),
  clock: propagationClock.optional().describe('node clocks: what is corrected and by how much'),
});
export type Propagation = z.infer<typeof propagation>;

export const changeList = z.array(
  change.extend({
    count: z.number().int(),
    repeats: z.number().int(),
    beforeChange: z.number().int(),
    stages: z.array(stageCount).describe('every stage the change was observed at'),
  }),
);
export type ChangeList = z.infer<typeof changeList>;

export const stageGapQuery = z.object({
  from: stageName
    .optional()
    .describe('the earlier stage (default: the first the change has, e.g. `received`)'),
  to: stageName
    .optional()
    .describe('the later stage (default: the last the change has, e.g. `serving`)'),
  percentiles: percentileList.optional(),
  bins: z.coerce.number().int().min(1).max(1000).default(DEFAULT_BINS),
  fromMs: z.coerce.number().optional().describe('histogram range start (default: the minimum)'),
  toMs: z.coerce.number().optional().describe('histogram range end (default: the maximum)'),
});
export type StageGapQuery = z.infer<typeof stageGapQuery>;

export const stageGap = z.object({
  change: z.string(),
  from: z.string(),
  to: z.string(),
  count: z
    .number()
    .int()
    .describe('proxies seen at both stages: the gap is first `to` minus first `from` of each'),
  onlyFrom: z.number().int().describe('proxies seen at `from` but never at `to`'),
  onlyTo: z.number().int().describe('proxies seen at `to` but never at `from`'),
  negative: z.number().int().describe('proxies whose first `to` is before their first `from`'),
  minMs: z.number().nullable(),
  maxMs: z.number().nullable(),
  meanMs: z.number().nullable(),
  percentiles: z.array(percentileValue),
  histogram: z.array(histogramBin),
  underflow: z.number().int().describe('gaps below the histogram range'),
  overflow: z.number().int().describe('gaps above the histogram range'),
  stages: z.array(stageCount),
});
export type StageGap = z.infer<typeof stageGap>;
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
