// The tail of a change: its slowest proxies, each with one cause, and the causes table.
import { z } from 'zod';
import { percentileValue } from './propagation.ts';
import { NO_CAUSE_DESCRIPTION } from './tail-cause-names.ts';

export const DEFAULT_TAIL_THRESHOLD_MS = 1000;
export const DEFAULT_TAIL_LIMIT = 50;
/** The percentiles given for each cause's latencies (nearest-rank). */
export const TAIL_CAUSE_PERCENTILES = [50, 90, 99] as const;
/** Causes the API assigns itself; any other cause is a runner's or an incident kind. */
export const UNEXPLAINED_CAUSE = 'unexplained';
export const NEVER_CONVERGED_CAUSE = 'never-converged';
/**
 * Without thresholdMs or thresholdP the tail is the proxies slower than the default threshold,
 * unless that would put more than this share of the proxies that applied the change in it
 * (its median is slower than the threshold): a "tail" that is most of the run explains nothing.
 */
export const TAIL_MAX_THRESHOLD_SHARE = 0.5;
/** ...in which case the tail is the proxies slower than this nearest-rank percentile. */
export const TAIL_FALLBACK_PERCENTILE = 95;
/** How the tail was cut, and why: asked for, the default threshold, or the fallback to P95. */
export const tailCutRule = z.enum(['thresholdMs', 'thresholdP', 'default', 'fallback']);
export type TailCutRule = z.infer<typeof tailCutRule>;

export const tailQuery = z
  .object({
    thresholdMs: z.coerce
      .number()
      .nonnegative()
      .optional()
      .describe(
        `tail: first applications slower than this. Without thresholdMs or thresholdP: ${DEFAULT_TAIL_THRESHOLD_MS} ms, unless more than ${TAIL_MAX_THRESHOLD_SHARE * 100} % of the proxies that applied the change are slower (its median is), then slower than P${TAIL_FALLBACK_PERCENTILE}; giving thresholdMs=${DEFAULT_TAIL_THRESHOLD_MS} keeps the threshold`,
      ),
    thresholdP: z.coerce
      .number()
      .gt(0)
      .lte(100)
      .optional()
      .describe('tail: first applications slower than this nearest-rank percentile of the change'),
    limit: z.coerce
      .number()
      .int()
      .min(0)
      .max(1000)
      .default(DEFAULT_TAIL_LIMIT)
      .describe('length of the slowest list'),
    clock: z
      .enum(['raw', 'corrected'])
      .optional()
      .describe(
        'latencies: "corrected" for node clocks (the default when the run has clock reports; 409 when it has none), "raw" as the nodes stamped them',
      ),
    format: z
      .enum(['json', 'csv'])
      .optional()
      .describe('csv: the causes table (or Accept: text/csv)'),
  })
  .refine((q) => q.thresholdMs === undefined || q.thresholdP === undefined, {
    message: 'give thresholdMs or thresholdP, not both',
    path: ['thresholdP'],
  });
export type TailQuery = z.infer<typeof tailQuery>;

export const tailIncident = z.object({
  kind: z.string(),
  node: z.string().nullable(),
  proxy: z.string().nullable(),
  from: z.string(),
  to: z.string().nullable().describe('null: still open'),
});
export type TailIncident = z.infer<typeof tailIncident>;

export const tailCause = z.object({
  cause: z.string(),
  description: z
    .string()
    .describe(
      `what the cause name means (docs/tail.md); "${NO_CAUSE_DESCRIPTION}" for a name the dictionary does not know`,
    ),
  described: z.boolean().describe('false: the runner chose the name, no description is known'),
  count: z.number().int(),
  share: z.number().describe('count / (tailCount + neverConverged)'),
  percentiles: z
    .array(percentileValue)
    .describe('nearest-rank P50, P90, P99 of this cause; empty for never-converged'),
});
export type TailCause = z.infer<typeof tailCause>;

export const tailProxy = z.object({
  proxy: z.string(),
  node: z.string().nullable(),
  ms: z.number(),
  cause: z.string(),
  incident: tailIncident.optional().describe('the incident the cause was taken from'),
});
export type TailProxy = z.infer<typeof tailProxy>;

/** Which latencies a tail was cut and counted on. */
export const tailClock = z
  .enum(['raw', 'corrected'])
  .describe(
    'the latencies the tail was cut and counted on: "corrected" (each node\'s clock offset taken out, GET /runs/{id}/clocks; the default when the run has clock reports) or "raw" (as the nodes stamped them)',
  );
export const tailClockError = z
  .number()
  .nullable()
  .describe(
    'corrected: the largest clock error of any corrected latency of the change (ms), so a latency near the cut may be on the other side by up to this much; null when raw',
  );

export const tail = z.object({
  thresholdMs: z
    .number()
    .nullable()
    .describe('null only for thresholdP on a change nobody applied'),
  thresholdP: z
    .number()
    .nullable()
    .describe(
      `the percentile asked for, or ${TAIL_FALLBACK_PERCENTILE} when the default threshold fell back to it`,
    ),
  cut: z
    .enum(['threshold', 'percentile'])
    .describe('how the tail was cut: by a time (thresholdMs) or by a percentile (thresholdP)'),
  cutRule: tailCutRule.describe(
    `why: thresholdMs or thresholdP asked for; "default": ${DEFAULT_TAIL_THRESHOLD_MS} ms, nothing asked; "fallback": nothing asked and ${DEFAULT_TAIL_THRESHOLD_MS} ms would have put more than ${TAIL_MAX_THRESHOLD_SHARE * 100} % of the proxies that applied the change in the tail, so P${TAIL_FALLBACK_PERCENTILE}`,
  ),
  medianMs: z
    .number()
    .nullable()
    .describe(
      "the change's nearest-rank P50 (exact); slower than thresholdMs exactly when more than half the proxies that applied it are in the tail; null when nobody applied it",
    ),
  applied: z.number().int().describe('distinct proxies that applied the change (exact)'),
  tailCount: z.number().int().describe('distinct proxies whose first application is slower'),
  neverConverged: z
    .number()
    .int()
    .describe('expected minus proxies that applied it; 0 without expected'),
  causes: z.array(tailCause).describe('by count, largest first'),
  slowest: z.array(tailProxy).describe('the slowest tail proxies first'),
  clock: tailClock,
  clockErrorMs: tailClockError,
});
export type Tail = z.infer<typeof tail>;
