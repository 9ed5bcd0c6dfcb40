// Load results as the API returns them: the normalized point plus where it came from, the
// merged steps of several load generators, and a run's interval data over time (stages).
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
  shortfall: z
    .boolean()
    .describe(
      "achieved RPS more than 5 % short of its share of the step's target (targetRps / the step's generators); false when the step has no target",
    ),
  saturated: z
    .boolean()
    .describe(
      "the generator reported its CPU use (generatorCpu) at 95 % or more; false when it did not report it",
    ),
});
export type GeneratorShare = z.infer<typeof generatorShare>;

export const storedLoadResult = loadResult.extend({
  id: z
    .number()
    .int()
    .nullable()
    .describe('the stored point; null for a merged step, which is computed on read'),
  format: resultFormat.describe('the file format the point was imported from'),
  generator: z
    .string()
    .nullable()
    .describe(
      'the load generator that sent this point, when the step was sent per generator; null for a single-source point and for a merged step',
    ),
  merged: z
    .object({ generators: z.array(generatorShare) })
    .nullable()
    .describe(
      "null for a stored point. Otherwise this row is a step (mode, connections, targetRps) merged over its generators' rows: their HdrHistograms added (percentiles of the merged distribution, method 'hdr'), requests, errors and achieved RPS summed. Charts of a run's steps use these rows and skip the rows with a generator",
    ),
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
    .default([50, 99])
    .describe('latency percentiles for each slot and stage (default 50,99)'),
});
export type StagesQuery = z.infer<typeof stagesQuery>;

export const loadSeriesSlot = z.object({
  startMs: z.number().describe('slot start, ms since the Unix epoch (a multiple of intervalMs)'),
  durationMs: z.number(),
  requests: z.number().int(),
  errors: z.number().int().nullable().describe('null when no interval in the slot counted errors'),
  rps: z.number().describe('requests / durationMs'),
  errorRate: z.number().nullable().describe('errors / requests, a fraction 0..1'),
  percentiles: z.array(stagePercentile),
  generators: z.number().int().describe('intervals (generators) merged into the slot'),
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
  intervalMs: z
    .number()
    .describe("the logs' interval length (the most common), ms; 0 when the run has no intervals"),
  series: z
    .array(loadSeriesSlot)
    .describe(
      "every generator's intervals merged per slot (interval start rounded down to intervalMs), across all steps, in time order",
    ),
  stages: z
    .array(loadStage)
    .describe('one per step (mode, connections, targetRps) with interval data, in time order'),
});
export type LoadStages = z.infer<typeof loadStages>;
