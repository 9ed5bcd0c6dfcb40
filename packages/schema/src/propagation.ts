// The propagation summary of one change: how fast the proxies applied it.
import { z } from 'zod';
import { percentileAccuracy, percentileList } from './accuracy.ts';

export const DEFAULT_PERCENTILES = [50, 90, 95, 96, 99, 99.9] as const;
export const DEFAULT_WITHIN_MS = 1000;
export const DEFAULT_BINS = 60;
export const histogramScale = z.enum(['linear', 'log']);
export type HistogramScale = z.infer<typeof histogramScale>;

export const propagationQuery = z.object({
  percentiles: percentileList.optional(),
  withinMs: z.coerce.number().nonnegative().default(DEFAULT_WITHIN_MS),
  bins: z.coerce.number().int().min(1).max(1000).default(DEFAULT_BINS),
  scale: histogramScale.default('linear'),
  fromMs: z.coerce.number().optional().describe('histogram range start (default: the minimum)'),
  toMs: z.coerce.number().optional().describe('histogram range end (default: the maximum)'),
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
