// Runs: one execution of one scenario against one mesh.
import { z } from 'zod';
import { gateResult } from './gates.ts';
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

export const listRunsQuery = z.object({
  project: z.uuid().optional().describe('project id'),
  mesh: z.string().optional(),
  version: z.string().optional().describe('mesh version'),
  benchmark: z.string().optional(),
  scenario: z.string().optional(),
  platform: z.string().optional(),
  status: runStatus.optional(),
  label: z
    .union([z.string(), z.array(z.string())])
    .optional()
    .describe('k:v, repeatable; all must match'),
  from: timestamp.optional().describe('started at or after'),
  to: timestamp.optional().describe('started before'),
  q: z
    .string()
    .max(200)
    .optional()
    .describe('search in benchmark, scenario, mesh, platform and labels'),
  sort: runSort.default('-startedAt').describe('a field, descending with a leading -'),
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
});
export type RunFacets = z.infer<typeof runFacets>;
