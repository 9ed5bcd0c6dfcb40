// What sets a change's tail apart: every attribute value its proxies carry, ranked by how
// over-represented it is among the slowest (BubbleUp-style outlier analysis).
import { z } from 'zod';
import { tailClock, tailClockError } from './tail.ts';

/** Without a threshold the tail is the proxies slower than this nearest-rank percentile. */
export const DEFAULT_ATTRIBUTION_PERCENTILE = 99;
export const DEFAULT_ATTRIBUTION_LIMIT = 10;
/** A value is ranked only when at least this many tail proxies carry it... */
export const ATTRIBUTION_MIN_TAIL_COUNT = 3;
/** ...and at least this share of the tail: a lone slow proxy explains nothing. */
export const ATTRIBUTION_MIN_TAIL_SHARE = 0.05;
/** Below this lift nothing stands out: the value is about as common in the tail as overall. */
export const ATTRIBUTION_STANDS_OUT_LIFT = 2;

export const tailAttributionQuery = z
  .object({
    thresholdMs: z.coerce
      .number()
      .nonnegative()
      .optional()
      .describe('tail: first applications slower than this'),
    thresholdP: z.coerce
      .number()
      .gt(0)
      .lte(100)
      .optional()
      .describe(
        `tail: first applications slower than this nearest-rank percentile of the change (default ${DEFAULT_ATTRIBUTION_PERCENTILE} when neither is given)`,
      ),
    limit: z.coerce
      .number()
      .int()
      .min(1)
      .max(100)
      .default(DEFAULT_ATTRIBUTION_LIMIT)
      .describe('how many values, highest excess share first'),
    clock: z
      .enum(['raw', 'corrected'])
      .optional()
      .describe(
        'latencies: "corrected" for node clocks (the default when the run has clock reports; 409 when it has none), "raw" as the nodes stamped them',
      ),
  })
  .refine((q) => q.thresholdMs === undefined || q.thresholdP === undefined, {
    message: 'give thresholdMs or thresholdP, not both',
    path: ['thresholdP'],
  });
export type TailAttributionQuery = z.infer<typeof tailAttributionQuery>;

export const attributeValue = z.object({
  attribute: z
    .string()
    .describe(
      '"node", "cause" (the runner\'s, on the first application), "incident" (the kind of an incident on the proxy or its node overlapping change -> application), "incident.<key>" (its attrs), or an observation attrs key ("az", "pool"...; "attrs.<key>" for a key named node, cause or incident)',
    ),
  value: z.string().describe('as text; attrs numbers and booleans as JSON writes them'),
  inTail: z.number().int().describe('tail proxies with this value (exact count)'),
  overall: z.number().int().describe('proxies with this value, tail included (exact count)'),
  share: z.number().describe('inTail / tailCount'),
  lift: z.number().describe('(inTail / tailCount) / (overall / total): 1 = as common as overall'),
});
export type AttributeValue = z.infer<typeof attributeValue>;

export const tailAttribution = z.object({
  thresholdMs: z
    .number()
    .nullable()
    .describe('the cut in ms; null only for a percentile of a change nobody applied'),
  thresholdP: z.number().nullable().describe('the percentile the cut was taken at, if any'),
  tailCount: z.number().int().describe('proxies whose first application is slower than the cut'),
  total: z.number().int().describe('proxies that applied the change'),
  minTailCount: z
    .number()
    .int()
    .describe(
      `values carried by fewer tail proxies are not ranked: max(${ATTRIBUTION_MIN_TAIL_COUNT}, ceil(${ATTRIBUTION_MIN_TAIL_SHARE * 100} % of tailCount))`,
    ),
  values: z
    .array(attributeValue)
    .describe(
      'highest excess share first (share - overall / total: the part of the tail a value covers beyond what its size predicts), then highest lift, then most tail proxies, then attribute and value by name',
    ),
  clock: tailClock,
  clockErrorMs: tailClockError,
});
export type TailAttribution = z.infer<typeof tailAttribution>;
