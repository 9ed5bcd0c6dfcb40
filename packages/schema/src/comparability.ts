// Whether runs can be held against each other at all: what makes a comparison (a gate's, the
// compare page's, a report's) answer "not comparable" rather than a difference. The kinds and
// their rules are in docs/comparability.md. (Few descriptions here: every page loads this.)
import { z } from 'zod';

export const comparabilityKind = z.enum([
  'topology',
  'mesh-version',
  'rps-shortfall',
  'generator-saturated',
  'percentile-exactness',
]);
export type ComparabilityKind = z.infer<typeof comparabilityKind>;

export const comparabilityWarning = z.object({
  kind: comparabilityKind,
  /** The runs the warning is about: one run, or the pair (the other run, the baseline). */
  runIds: z.array(z.uuid()),
  /** What differs, with the numbers. */
  reason: z.string(),
});
export type ComparabilityWarning = z.infer<typeof comparabilityWarning>;

export const comparability = z.object({
  /** The runs checked, the first the baseline. */
  runs: z.array(z.uuid()),
  /** False when there is any warning. */
  comparable: z.boolean(),
  warnings: z.array(comparabilityWarning),
});
export type Comparability = z.infer<typeof comparability>;

/** What a comparison can pin: the gate rule's `same:<pin>`, the API's `same=<pin>`. */
export const comparabilityPin = z.enum(['mesh.version']);
export type ComparabilityPin = z.infer<typeof comparabilityPin>;

export const comparabilityQuery = z.object({
  runs: z
    .string()
    .describe('2 to 4 run ids or slugs, comma-separated, the first the baseline')
    .transform((s) => [...new Set(s.split(',').map((x) => x.trim()))].filter(Boolean))
    .refine((ids) => ids.length > 1 && ids.length < 5, 'give 2 to 4 different runs'),
  same: comparabilityPin.optional(),
});
export type ComparabilityQuery = z.infer<typeof comparabilityQuery>;

/** The verdict of one difference: the gates' words (gates.ts significance.verdict). */
export const differenceVerdict = z.enum([
  'regressed',
  'improved',
  'no-significant-change',
  'not-comparable',
]);

export const compareSignificanceQuery = z.object({
  runs: comparabilityQuery.shape.runs,
  changes: z
    .string()
    .describe('one change id per run, comma-separated, in the order of runs; empty: none')
    .transform((s) => s.split(',').map((x) => x.trim())),
  percentiles: z
    .string()
    .default('50,90,99,99.9')
    .transform((s) => s.split(',').map(Number))
    .refine(
      (ps) => ps.length > 0 && ps.length <= 10 && ps.every((p) => p > 0 && p <= 100),
      'give 1 to 10 percentiles in (0, 100]',
    ),
});
export type CompareSignificanceQuery = z.input<typeof compareSignificanceQuery>;

/** One percentile's difference from the baseline's and its bootstrap interval, ms. */
export const percentileDifference = z.object({
  p: z.number(),
  verdict: differenceVerdict,
  reason: z.string(),
  deltaMs: z.number().nullable(),
  lowMs: z.number().nullable(),
  highMs: z.number().nullable(),
});
export type PercentileDifferenceAnswer = z.infer<typeof percentileDifference>;

export const compareSignificance = z.object({
  /** 0.95: each interval is the central 95 % of the exact bootstrap distribution. */
  level: z.number(),
  /** Per run, in the order asked, the baseline first (its differences empty). */
  runs: z.array(
    z.object({
      runId: z.uuid(),
      changeId: z.string().nullable(),
      /** The raw latencies read (first applications); 0 when the run keeps none. */
      observations: z.number().int(),
      differences: z.array(percentileDifference),
    }),
  ),
});
export type CompareSignificance = z.infer<typeof compareSignificance>;
