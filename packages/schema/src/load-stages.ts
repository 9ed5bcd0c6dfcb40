// A data-plane run's stages over time (the Istio 500k-RPS test: ~1k, 5k, 25k, then 500k RPS),
// from its interval histograms: `GET /runs/{id}/results/stages?percentiles=50,99`.
import { z } from 'zod';
import { percentileAccuracy, percentileList } from './accuracy.ts';

const count = z.number().int().nonnegative();

export const loadStagePercentile = z.object({
  p: z.number().describe('the percentile, in (0, 100]'),
  ms: z.number().nonnegative(),
  accuracy: percentileAccuracy,
});
export type LoadStagePercentile = z.infer<typeof loadStagePercentile>;

export const loadStagesQuery = z.object({
  percentiles: percentileList
    .optional()
    .describe('percentiles of each interval and each stage (nearest rank of the merged histogram)'),
});
export type LoadStagesQuery = z.infer<typeof loadStagesQuery>;

export const loadInterval = z.object({
  startMs: z.number().describe("since the run's first interval"),
  durationMs: z.number().nonnegative(),
  requests: count,
  errors: count.nullable(),
  rps: z.number().nonnegative().describe('requests / duration, all generators together'),
  errorRate: z.number().nonnegative().nullable().describe('errors / requests, a fraction'),
  percentiles: z.array(loadStagePercentile),
  generators: count.describe('load generators that reported this interval'),
});
export type LoadInterval = z.infer<typeof loadInterval>;

export const loadStageGenerator = z.object({
  name: z.string(),
  achievedRps: z.number().nonnegative(),
  shortfall: z.boolean().describe('achieved noticeably less than its share of the target'),
  saturated: z.boolean().describe('its CPU was saturated (when reported)'),
});
export type LoadStageGenerator = z.infer<typeof loadStageGenerator>;

export const loadStage = z.object({
  mode: z.string(),
  connections: count.nullable(),
  targetRps: z.number().nonnegative().nullable(),
  fromMs: z.number(),
  toMs: z.number(),
  achievedRps: z.number().nonnegative(),
  requests: count,
  errors: count.nullable(),
  errorRate: z.number().nonnegative().nullable(),
  percentiles: z.array(loadStagePercentile),
  generators: z.array(loadStageGenerator),
});
export type LoadStage = z.infer<typeof loadStage>;

export const loadStages = z.object({
  intervalMs: z.number().positive(),
  series: z.array(loadInterval),
  stages: z.array(loadStage),
});
export type LoadStages = z.infer<typeof loadStages>;
