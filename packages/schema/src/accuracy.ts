// How a percentile was obtained, and how far it can be from the true nearest-rank value.
// One convention for every percentile the API returns (propagation, tails, metric series,
// load results): `exact` says whether it is the nearest-rank value of the recorded values
// themselves; when it is not, `lower`/`upper` bound where the true value lies (or
// `relativeError` bounds it as a fraction of the value) and `method` names the estimator.
import { z } from 'zod';

export const percentileMethod = z
  .enum([
    'raw',
    'ddsketch',
    'exponential-histogram',
    'explicit-histogram',
    'hdr',
    'tool-histogram',
    'reported',
    'summary',
    'clock-corrected',
  ])
  .describe(
    [
      "raw: nearest rank over every recorded value (exact); a load generator's raw samples recorded at its resolution (hey's 0.1 ms, whole ms): exact: false, the true value within the tool's rounding, [lower, upper]",
      'ddsketch: DDSketch at the nearest rank; the true value is within relativeError of it',
      'exponential-histogram: OTLP exponential buckets; the true value lies in [lower, upper]',
      'explicit-histogram: explicit bucket bounds; the true value lies in [lower, upper], the value is interpolated linearly inside the bucket',
      'hdr: HdrHistogram; within its significant digits (relativeError)',
      "tool-histogram: a load generator's own histogram buckets; the true value lies in [lower, upper]",
      'reported: as the tool reported it, computed by the tool; no bound known',
      'summary: an OTLP Summary quantile as the client sent it; no bound known',
      "clock-corrected: nearest rank over latencies with each node's clock offset taken out; the true value lies within clockErrorMs of it ([lower, upper]), for the nodes with clock reports",
    ].join('; '),
  );
export type PercentileMethod = z.infer<typeof percentileMethod>;

export const percentileAccuracy = z.object({
  exact: z.boolean().describe('true only for nearest rank over the recorded values themselves'),
  method: percentileMethod,
  lower: z
    .number()
    .nullable()
    .optional()
    .describe('the true nearest-rank value is at least this (null: unbounded below)'),
  upper: z
    .number()
    .nullable()
    .optional()
    .describe('the true nearest-rank value is at most this (null: unbounded above)'),
  relativeError: z
    .number()
    .optional()
    .describe('the true value is within this fraction of the given value (e.g. 0.01)'),
  clockErrorMs: z
    .number()
    .optional()
    .describe(
      'clock-corrected: the true value is within this many ms of the given value (the largest clock error of any corrected latency)',
    ),
});
export type PercentileAccuracy = z.infer<typeof percentileAccuracy>;

/** `?percentiles=50,90,96,99,99.9`: any percentiles in (0, 100], at most 50. */
export const percentileList = z
  .string()
  .regex(/^\d+(\.\d+)?(,\d+(\.\d+)?)*$/, 'must be a comma-separated list of numbers')
  .transform((s) => s.split(',').map(Number))
  .refine((ps) => ps.every((p) => p > 0 && p <= 100), 'each percentile must be in (0, 100]')
  .refine((ps) => ps.length <= 50, 'at most 50 percentiles');
