// Load results as the API returns them: the normalized point plus where it came from, the
// merged steps of several load generators, and a run's interval data over time (stages).
// Field meanings are in docs/results.md (kept out of this module: the web app bundles it).
import { z } from 'zod';
import { percentileAccuracy } from './accuracy.ts';
import { loadResult, resultFormat } from './load-results.ts';

/** A generator's achieved rate below this fraction of its share of the target is a shortfall. */
export const GENERATOR_SHORTFALL_FRACTION = 0.95;
/** A generator using at least this fraction of its CPU is saturated. */
export const GENERATOR_SATURATED_CPU = 0.95;

export const generatorShare = z.object({
  name: z.string(),
  achievedRps: z.number().nullable(),
  shortfall: z.boolean(),
  saturated: z.boolean(),
});
export type GeneratorShare = z.infer<typeof generatorShare>;

export const storedLoadResult = loadResult.extend({
  id: z.number().int().nullable(),
  format: resultFormat.describe('the file format the point was imported from'),
  generator: z.string().nullable(),
  merged: z.object({ generators: z.array(generatorShare) }).nullable(),
});
export type StoredLoadResult = z.infer<typeof storedLoadResult>;

export const stagePercentile = z.object({
  p: z.number(),
  ms: z.number(),
  accuracy: percentileAccuracy,
});
export type StagePercentile = z.infer<typeof stagePercentile>;

export const stagesQuery = z.object({
  percentiles: z
    .string()
    .regex(/^\d+(\.\d+)?(,\d+(\.\d+)?)*$/, 'must be a comma-separated list of numbers')
    .transform((s) => s.split(',').map(Number))
    .refine((ps) => ps.every((p) => p >= 0 && p <= 100), 'each percentile must be in [0, 100]')
    .refine((ps) => ps.length <= 20, 'at most 20 percentiles')
    .default([50, 99]),
});
export type StagesQuery = z.infer<typeof stagesQuery>;

export const loadSeriesSlot = z.object({
  startMs: z.number(),
  durationMs: z.number(),
  requests: z.number().int(),
  errors: z.number().int().nullable(),
  rps: z.number(),
  errorRate: z.number().nullable(),
  percentiles: z.array(stagePercentile),
  generators: z.number().int(),
});
export type LoadSeriesSlot = z.infer<typeof loadSeriesSlot>;

export const loadStage = z.object({
  mode: z.string(),
  connections: z.number().int().nullable(),
  targetRps: z.number().nullable(),
  fromMs: z.number(),
  toMs: z.number(),
  achievedRps: z.number().nullable(),
  requests: z.number().int(),
  errors: z.number().int().nullable(),
  errorRate: z.number().nullable(),
  percentiles: z.array(stagePercentile),
  generators: z.array(generatorShare),
});
export type LoadStage = z.infer<typeof loadStage>;

export const loadStages = z.object({
  intervalMs: z.number(),
  series: z.array(loadSeriesSlot),
  stages: z.array(loadStage),
});
export type LoadStages = z.infer<typeof loadStages>;
