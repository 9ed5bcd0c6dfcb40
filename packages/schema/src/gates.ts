// Regression gates and history: thresholds per project and benchmark, their verdict on a
// finished run, and one number across runs.
import { z } from 'zod';
import { percentileAccuracy } from './accuracy.ts';
import { comparabilityPin } from './comparability.ts';
import { INT4_MAX } from './time.ts';

/** What a gate rule or the history reads from a run: latencies in ms, within1s in %, missing a count. */
export const METRICS = [
  'p50',
  'p90',
  'p95',
  'p96',
  'p99',
  'p99.9',
  'mean',
  'max',
  'within1s',
  'missing',
] as const;
export const metric = z.enum(METRICS);
export type Metric = z.infer<typeof metric>;

/**
 * What a data-plane gate rule reads at each load step (mode, connections, target rate):
 * latency percentiles in ms, the achieved rate in requests a second, errors in % of requests.
 */
export const LOAD_METRICS = [
  'load.p50',
  'load.p90',
  'load.p99',
  'load.p99.9',
  'load.rps',
  'load.errors',
] as const;
export const loadMetric = z.enum(LOAD_METRICS);
export type LoadMetric = z.infer<typeof loadMetric>;

export const createThresholdBody = z.strictObject({
  benchmark: z.string().min(1).max(200),
  scenario: z
    .string()
    .min(1)
    .max(200)
    .optional()
    .describe('default: every scenario of the benchmark'),
  rule: z
    .string()
    .min(1)
    .max(100)
    .meta({ example: 'p99>+10%' })
    .describe(
      'a gate rule: p99>+10%, within1s<95%, p99>1500ms, missing>0; on every load step: load.p99>+10%, load.p99>5ms, load.rps<-5%, load.errors>+1pp, load.errors>1%',
    ),
  baseline: z
    .string()
    .min(1)
    .max(200)
    .optional()
    .describe(
      'a run id, or branch:NAME for the median of its last `last` finished runs; needed by relative rules',
    ),
  last: z.number().int().min(1).max(100).default(5),
});
export type CreateThresholdBody = z.infer<typeof createThresholdBody>;

export const threshold = z.object({
  id: z.uuid(),
  projectId: z.uuid(),
  benchmark: z.string(),
  scenario: z.string().nullable(),
  rule: z.string(),
  baseline: z.string().nullable(),
  last: z.number().int(),
  createdAt: z.string(),
});
export type Threshold = z.infer<typeof threshold>;

/** Whether a percentile moved beyond noise between a run and its baseline. */
export const significance = z.object({
  verdict: z.enum(['regressed', 'improved', 'no-significant-change', 'not-comparable']),
  reason: z.string(),
  delta: z.number().optional().describe('current minus baseline percentile, ms'),
  low: z.number().optional().describe('the interval of the difference, ms'),
  high: z.number().optional(),
  level: z.number().optional().describe('0.95: the central 95 % of the bootstrap distribution'),
  noiseFloorMs: z
    .number()
    .nullable()
    .describe('the largest spread of this percentile among repeats of one configuration'),
});
export type Significance = z.infer<typeof significance>;

export const significanceQuery = z.object({
  baseline: z
    .string()
    .min(1)
    .max(200)
    .describe(
      'a run id, or branch:NAME for the pooled observations of its last `last` finished runs',
    ),
  last: z.coerce.number().int().min(1).max(100).default(5),
  metric: z.enum(['p50', 'p90', 'p95', 'p96', 'p99', 'p99.9']).default('p99'),
  minEffectMs: z.coerce
    .number()
    .min(0)
    .default(0)
    .describe('the smallest difference that counts (a rule of +10 % on 800 ms: 80)'),
  /** mesh.version: a baseline of another mesh version is not comparable. */
  same: comparabilityPin.optional(),
});
export type SignificanceQuery = z.infer<typeof significanceQuery>;

export const significanceAnswer = significance.extend({
  metric: z.string(),
  baseline: z.string().describe('what the run was held against'),
});
export type SignificanceAnswer = z.infer<typeof significanceAnswer>;

export const loadGateQuery = z.object({
  rule: z
    .string()
    .min(1)
    .max(100)
    .meta({ example: 'load.p99>+10%' })
    .describe('a data-plane rule: load.p99>+10%, load.p99>5ms, load.rps<-5%, load.errors>+1pp'),
  baseline: z
    .string()
    .min(1)
    .max(200)
    .optional()
    .describe('a run id, or branch:NAME for its newest finished run; needed by relative rules'),
});
export type LoadGateQuery = z.infer<typeof loadGateQuery>;

const significanceVerdict = significance.shape.verdict;

/** One load step's verdict under a data-plane rule. */
export const gateStep = z.object({
  mode: z.string(),
  connections: z.number().int().nullable(),
  targetRps: z.number().nullable(),
  config: z
    .string()
    .nullable()
    .optional()
    .describe("the step's configuration (an Istio perf CSV label's config); null: none"),
  verdict: significanceVerdict,
  failed: z.boolean(),
  reason: z.string(),
  current: z.number().nullable(),
  baselineValue: z.number().nullable(),
  bound: z.number().nullable(),
  tested: z
    .boolean()
    .describe(
      'whether the difference was significance-tested (both steps hold an HdrHistogram); false: the fixed rule alone, the reason says why',
    ),
  significance: significance.optional(),
});
export type GateStep = z.infer<typeof gateStep>;

export const gateVerdict = z.object({
  rule: z.string(),
  baseline: z.string().describe('what the rule was held against'),
  baselineValue: z.number().nullable(),
  current: z.number().nullable(),
  bound: z.number().nullable(),
  failed: z.boolean(),
  reason: z.string(),
  significance: significance
    .optional()
    .describe(
      'rules on a percentile of raw observations with a baseline: the exact bootstrap interval of the difference; the rule fails only when it excludes zero and the difference is beyond both the rule and the noise floor',
    ),
  verdict: significanceVerdict
    .optional()
    .describe("data-plane rules (load.*): the worst of the steps' verdicts"),
  steps: z
    .array(gateStep)
    .optional()
    .describe(
      'data-plane rules (load.*): each load step of the run (and of the baseline, for a relative rule), its verdict and why; steps only one side has are not comparable',
    ),
});
export type GateVerdict = z.infer<typeof gateVerdict>;

export const gateResult = z.object({
  runId: z.uuid(),
  passed: z.boolean(),
  evaluatedAt: z.string(),
  verdicts: z.array(gateVerdict),
});
export type GateResult = z.infer<typeof gateResult>;

/**
 * What a history reads from a run: the propagation metrics of its first change (METRICS),
 * scale-up (time to N % of its nodes joined, control-plane CPU) and data plane (one load
 * point's latencies, rate and errors).
 */
export const HISTORY_METRICS = [
  ...METRICS,
  'joined50',
  'joined90',
  'joined99',
  'joined100',
  'cpuPeak',
  'cpuSteady',
  'loadP50',
  'loadP99',
  'achievedRps',
  'errorRate',
] as const;
export const historyMetric = z
  .enum(HISTORY_METRICS)
  .describe(
    'propagation: p50..max in ms (max: time to 100 %), within1s %, missing; scale-up: joinedN ms to N % joined, cpuPeak and cpuSteady (after the last join) %; data plane at one load point: loadP50/loadP99 ms, achievedRps, errorRate % of requests',
  );
export type HistoryMetric = z.infer<typeof historyMetric>;

/** Change-point settings of a request: else the project's, else the defaults. */
const detectionOverride = {
  maxPValue: z.coerce.number().gt(0).lt(1).optional().describe('largest p-value (0.001)'),
  minMagnitude: z.coerce.number().min(0).optional().describe('smallest relative change (0.05)'),
  minSegment: z.coerce
    .number()
    .int()
    .min(1)
    .max(100)
    .optional()
    .describe('fewest runs between (3)'),
};

export const historyQuery = z.object({
  benchmark: z.string().min(1),
  scenario: z.string().optional(),
  metric: historyMetric.default('p99'),
  branch: z.string().optional().describe('runs labelled branch:<this>'),
  mesh: z.string().optional(),
  project: z.string().optional().describe('project id or name: its runs only'),
  limit: z.coerce.number().int().min(1).max(1000).default(100),
  mode: z.string().optional().describe('load point: mode ("both", else the most common)'),
  connections: z.coerce
    .number()
    .int()
    .min(0)
    .max(INT4_MAX)
    .optional()
    .describe('load point (the most)'),
  targetRps: z.coerce.number().min(0).optional().describe('load point (the highest)'),
  config: z
    .string()
    .optional()
    .describe(
      "load point: configuration (an Istio perf CSV label's config; the most common there)",
    ),
  ...detectionOverride,
});
export type HistoryQuery = z.infer<typeof historyQuery>;

export const historyPoint = z.object({
  runId: z.uuid(),
  startedAt: z.string(),
  mesh: z.object({ name: z.string(), version: z.string().nullable() }),
  scenario: z.string(),
  labels: z.record(z.string(), z.string()),
  value: z.number().nullable(),
  accuracy: percentileAccuracy.nullable().describe('null: not a percentile or time to N %'),
  pooledChanges: z
    .number()
    .int()
    .nullable()
    .describe(
      "a propagation metric of a run of several changes is pooled over every first application of this many changes (GET /runs/{id}/propagation's pooled distribution); null: over the run's one change, or not a propagation metric",
    ),
});
export type HistoryPoint = z.infer<typeof historyPoint>;

export const historyChangePoint = z.object({
  scenario: z.string(),
  mesh: z
    .string()
    .describe('the series: runs of one scenario and mesh (and branch, when labelled)'),
  branch: z.string().nullable(),
  runId: z.uuid().describe('the first run after the change'),
  previousRunId: z.uuid().describe('the last run before it'),
  before: z.number().describe('mean of the series from the previous change point to this one'),
  after: z.number().describe('mean from this change point to the next'),
  change: z.number().describe('after / before - 1'),
  pValue: z.number().describe('two-sided t-test of the two segments'),
  alert: z
    .object({ id: z.uuid(), state: z.enum(['open', 'acknowledged', 'dismissed']) })
    .nullable()
    .describe(
      "the change point's alert, kept since a run's finish found it (alerting metrics: p50, p99, within1s, max, joined100, cpuPeak, loadP99 and achievedRps at the alert's load point)",
    ),
});
export type HistoryChangePoint = z.infer<typeof historyChangePoint>;

export const history = z.object({
  metric: historyMetric,
  metrics: z.array(historyMetric).describe('the metrics some of the runs have'),
  loadPoint: z
    .object({
      mode: z.string(),
      connections: z.number().int().nullable(),
      targetRps: z.number().nullable(),
      config: z
        .string()
        .nullable()
        .describe('the configuration read (points of another are another series); null: none'),
    })
    .nullable(),
  points: z.array(historyPoint).describe('oldest first'),
  changePoints: z
    .array(historyChangePoint)
    .describe(
      'E-Divisive means with a t-test (Hunter, as Apache Otava computes it) over each series of the points, runs without the metric left out',
    ),
  detection: z.object({
    method: z.literal('e-divisive-means-ttest'),
    maxPValue: z.number(),
    minMagnitude: z.number(),
    minSegment: z.number().int(),
    windowLen: z.number().int(),
    source: z.enum(['request', 'project', 'default']),
  }),
});
export type History = z.infer<typeof history>;
