// The tail of a change: its slowest proxies, each with one cause, and the causes table.
import { z } from 'zod';
import { percentileValue } from './propagation.ts';

export const DEFAULT_TAIL_THRESHOLD_MS = 1000;
export const DEFAULT_TAIL_LIMIT = 50;
/** The percentiles given for each cause's latencies (nearest-rank). */
export const TAIL_CAUSE_PERCENTILES = [50, 90, 99] as const;
/** Causes the API assigns itself; any other cause is a runner's or an incident kind. */
export const UNEXPLAINED_CAUSE = 'unexplained';
export const NEVER_CONVERGED_CAUSE = 'never-converged';

export const tailQuery = z
  .object({
    thresholdMs: z.coerce
      .number()
      .nonnegative()
      .optional()
      .describe(
        `tail: first applications slower than this (default ${DEFAULT_TAIL_THRESHOLD_MS} ms)`,
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

export const tail = z.object({
  thresholdMs: z
    .number()
    .nullable()
    .describe('null only for thresholdP on a change nobody applied'),
  thresholdP: z.number().nullable().describe('the percentile asked for, if any'),
  tailCount: z.number().int().describe('distinct proxies whose first application is slower'),
  neverConverged: z
    .number()
    .int()
    .describe('expected minus proxies that applied it; 0 without expected'),
  causes: z.array(tailCause).describe('by count, largest first'),
  slowest: z.array(tailProxy).describe('the slowest tail proxies first'),
});
export type Tail = z.infer<typeof tail>;
