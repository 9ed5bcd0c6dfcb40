// Runs: one execution of one scenario against one mesh.
import { z } from 'zod';
import { gateResult } from './gates.ts';
import { percentileValue } from './propagation.ts';
import { timestamp } from './time.ts';

export const runStatus = z.enum(['running', 'finished', 'failed', 'cancelled']);
export type RunStatus = z.infer<typeof runStatus>;

const name = z.string().min(1).max(200);

export const mesh = z.strictObject({
  name: name.meta({ example: 'consul' }),
  version: z.string().max(100).optional().meta({ example: '1.9.5' }),
});

export const topology = z.strictObject({
  nodes: z.number().int().nonnegative().max(2_147_483_647).optional(),
  services: z.number().int().nonnegative().max(2_147_483_647).optional(),
  instances: z.number().int().nonnegative().max(2_147_483_647).optional(),
  servers: z.number().int().nonnegative().max(2_147_483_647).optional(),
});
export type Topology = z.infer<typeof topology>;

export const labels = z.record(z.string().min(1).max(200), z.string().max(2000));

export const createRunBody = z.strictObject({
  project: z
    .string()
    .min(1)
    .optional()
    .describe("project id or name; default: the token's project, or the default project"),
  benchmark: name.meta({ example: 'global-scale' }),
  scenario: name.meta({ example: 'endpoint-propagation' }),
  mesh,
  platform: z.string().max(100).optional().meta({ example: 'nomad' }),
  topology: topology.optional(),
  environment: z.string().max(200).optional(),
  labels: labels.optional(),
  startedAt: timestamp.optional(),
  finishedAt: timestamp.optional(),
});
export type CreateRunBody = z.infer<typeof createRunBody>;

export const finishRunBody = z.strictObject({
  finishedAt: timestamp.optional(),
  status: runStatus.exclude(['running']).optional(),
});
export type FinishRunBody = z.infer<typeof finishRunBody>;

/**
 * The steps of finishing a run, in the order they run (a run not `finished` has only
 * clock-correction and load-slots): corrected summaries and load slots first, so the gate
 * reads them.
 */
export const finishStep = z.enum(['clock-correction', 'load-slots', 'gate', 'alerts', 'history']);
export type FinishStep = z.infer<typeof finishStep>;

/** Finishing not complete: the step it is at (it and every later one undone). */
export const runFinishing = z
  .object({
    step: finishStep.describe('the next step to do'),
    failures: z.number().int().describe('tries of this step that failed'),
    failedAt: z.string().nullable().describe('the last failure of this step, if any'),
  })
  .describe(
    'GET /runs/{id} and PATCH only, absent when finishing is complete: the step finishing is at. A failed step is tried again by the next PATCH and by the background worker.',
  );
export type RunFinishing = z.infer<typeof runFinishing>;

export const run = z.object({
  id: z.uuid(),
  slug: z.string(),
  projectId: z.uuid(),
  benchmark: z.string(),
  scenario: z.string(),
  mesh: z.object({ name: z.string(), version: z.string().nullable() }),
  platform: z.string().nullable(),
  topology: topology,
  environment: z.string().nullable(),
  labels: z.record(z.string(), z.string()),
  status: runStatus,
  startedAt: z.string(),
  finishedAt: z.string().nullable(),
  createdAt: z.string(),
  changes: z.number().int().describe('number of changes posted to the run'),
  gated: z
    .boolean()
    .optional()
    .describe(
      'GET /runs/{id} only: whether a gate verdict is kept for the run (GET /runs/{id}/gate answers 404 otherwise)',
    ),
  finishing: runFinishing.optional(),
});
export type Run = z.infer<typeof run>;

/** PATCH /runs/{id}: the run, with its thresholds' verdict (null when none apply). */
export const finishedRun = run.extend({ gate: gateResult.nullable() });
export type FinishedRun = z.infer<typeof finishedRun>;

export const runList = z.object({
  runs: z.array(run),
  total: z.number().int(),
});
export type RunList = z.infer<typeof runList>;

export const runSort = z.enum([
  'startedAt',
  '-startedAt',
  'mesh',
  '-mesh',
  'benchmark',
  '-benchmark',
  'scenario',
  '-scenario',
  'status',
  '-status',
]);
export type RunSort = z.infer<typeof runSort>;

const contains = (what: string) =>
  z.string().optional().describe(`${what}: contains this, ignoring case ("ist" finds istio)`);

export const listRunsQuery = z.object({
  project: z.uuid().optional().describe('project id'),
  mesh: contains('mesh name'),
  version: contains('mesh version'),
  benchmark: contains('benchmark'),
  scenario: contains('scenario'),
  platform: contains('platform'),
  status: runStatus.optional(),
  label: z
    .union([z.string(), z.array(z.string())])
    .optional()
    .describe('k=v or k:v (exact), repeatable; all must match; any other form is a 400'),
  from: timestamp.optional().describe('started at or after'),
  to: timestamp.optional().describe('started before'),
  q: z
    .string()
    .max(200)
    .optional()
    .describe('search in benchmark, scenario, mesh, platform and labels, ignoring case'),
  sort: runSort
    .default('-startedAt')
    .describe(
      'a field, descending with a leading -; mesh sorts by name, then version as a version (1.10.0 after 1.9.5)',
    ),
  limit: z.coerce.number().int().min(1).max(500).default(50),
  offset: z.coerce.number().int().min(0).default(0),
});
export type ListRunsQuery = z.infer<typeof listRunsQuery>;

export const runFacets = z.object({
  meshes: z.array(z.string()),
  versions: z.array(z.string()),
  benchmarks: z.array(z.string()),
  scenarios: z.array(z.string()),
  platforms: z.array(z.string()),
  labelKeys: z.array(z.string()),
  benchmarkRuns: z
    .array(z.object({ benchmark: z.string(), scenario: z.string(), runs: z.number().int() }))
    .describe('runs per benchmark and scenario, most first (a page opens on the largest)'),
});
export type RunFacets = z.infer<typeof runFacets>;

/**
 * GET /runs/headlines: the number each run's kind is judged by, for the runs list. A run with
 * changes is a propagation run; else one with load results a data-plane run; else one with
 * lifecycle phases a scale-up.
 */
export const runHeadline = z.discriminatedUnion('kind', [
  z.object({
    runId: z.uuid(),
    kind: z.literal('propagation'),
    summary: z
      .enum(['change', 'pooled'])
      .describe(
        'what the figures are over: "change", the run\'s one change; "pooled", every first application of every change of a run with several (GET /runs/{id}/propagation\'s pooled distribution)',
      ),
    changes: z.number().int().describe('changes the figures are over (1 for "change")'),
    changeId: z
      .string()
      .nullable()
      .describe('the change summarised; null when pooled over several'),
    count: z.number().int().describe('first applications counted'),
    p99: percentileValue.nullable().describe('nearest-rank P99 of those latencies (exact)'),
    withinMs: z.number(),
    withinFraction: z
      .number()
      .nullable()
      .describe(
        "share of the expected proxies (of those seen when none is declared) within withinMs; pooled: over the sum of every change's",
      ),
    worst: z
      .object({ changeId: z.string(), p99Ms: z.number() })
      .nullable()
      .describe('pooled: the change with the highest own P99 (exact, nearest rank); else null'),
  }),
  z.object({
    runId: z.uuid(),
    kind: z.literal('scale-up'),
    phase: z.string().describe('"joined" when the run has it, else its phase with most entities'),
    count: z.number().int(),
    total: z.number().int(),
    timeToAllMs: z
      .number()
      .nullable()
      .describe('from the run start to the last of `total` entities; null when not all arrived'),
  }),
  z.object({
    runId: z.uuid(),
    kind: z.literal('data-plane'),
    mode: z.string(),
    connections: z.number().int().nullable(),
    config: z
      .string()
      .nullable()
      .describe("the step's configuration (an Istio perf CSV's label config); null when none"),
    rps: z.number().nullable().describe('the top target rate (achieved when no target)'),
    p99: percentileValue
      .nullable()
      .describe(
        "P99 of the slowest step at that rate: a step sent by several load generators read from their merged HdrHistogram (never one generator's own), else as the point reports it",
      ),
    generators: z
      .number()
      .int()
      .nullable()
      .describe('load generators merged into that step; null when one source sent it'),
    repeats: z
      .number()
      .int()
      .describe(
        'points of that step (same mode, connections, rate and config); the slowest is shown',
      ),
  }),
]);
export type RunHeadline = z.infer<typeof runHeadline>;

export const runHeadlinesQuery = z.object({
  ids: z
    .string()
    .regex(/^[0-9a-f-]{36}(,[0-9a-f-]{36}){0,99}$/i, 'must be 1 to 100 comma-separated run ids')
    .describe('run ids, comma-separated (at most 100)'),
});
export const runHeadlines = z.array(runHeadline);

/**
 * A label filter as a person types it or the list shows it: `key=value` or `key:value`, split
 * at the first `=` or `:` (a value may hold either); an error message for any other form.
 */
export function parseLabelFilter(text: string): { key: string; value: string } | { error: string } {
  const s = text.trim();
  const at = [s.indexOf('='), s.indexOf(':')].filter((i) => i >= 0);
  const i = at.length > 0 ? Math.min(...at) : -1;
  if (i < 0) return { error: `label "${s}" must be key=value (or key:value), e.g. branch=main` };
  const key = s.slice(0, i).trim();
  const value = s.slice(i + 1).trim();
  if (!key) return { error: `label "${s}" has no key before "${s[i]}": write key=value` };
  if (!value) return { error: `label "${s}" has no value after "${s[i]}": write key=value` };
  return { key, value };
}
