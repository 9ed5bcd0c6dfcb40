// Metric series (StatsD and OTLP), their points, and a run's scale-up timeline.
import { z } from 'zod';
import { percentileAccuracy, percentileList } from './accuracy.ts';

export const seriesKind = z.enum([
  'counter',
  'updowncounter',
  'gauge',
  'set',
  'timer',
  'histogram',
  'distribution',
  'exponential_histogram',
  'summary',
  // A Prometheus gauge histogram: each point a distribution at its time, never added up.
  'gauge_histogram',
]);
export type SeriesKind = z.infer<typeof seriesKind>;

export const seriesSource = z.enum(['statsd', 'otlp', 'prometheus']);
export type SeriesSource = z.infer<typeof seriesSource>;

/** A percentile of a metric series, with how it was obtained (see accuracy.ts). */
export const quantileValue = z
  .object({ p: z.number(), value: z.number() })
  .extend(percentileAccuracy.partial().shape);
export type QuantileValue = z.infer<typeof quantileValue>;

const DISTRIBUTION_PERCENTILES = [
  'Nearest rank (the value at rank ceil(p/100 * count)) of the values merged over the window, p from `?percentiles` (default 50,90,99), each saying how it was obtained:',
  'StatsD timers/histograms/distributions whose every interval held at most 256 unsampled samples (and at most 100,000 in the window): method raw, exact: true;',
  'more samples, or sampled ones: method ddsketch, the true value within relativeError (0.01) of value;',
  'OTLP exponential histograms (kind exponential_histogram, merged at the coarsest scale): method exponential-histogram, the true value in [lower, upper], the bucket (base^i, base^(i+1)] with base 2^(2^-scale) narrowed by the recorded min/max, value its geometric middle;',
  "OTLP explicit-bucket histograms: method explicit-histogram, the true value in [lower, upper], the bucket the rank falls in (narrowed by min/max, or by streamMin/streamMax when the run's are unknown; null: the open-ended bucket when neither is known), value interpolated linearly inside the bucket narrowed by the run's own min/max only, or the bucket's closed side when it is open-ended and the run's extreme there is unknown (a histogram without finite bounds, one bucket open on both sides, has no percentile unless a min, max or bound is known);",
  'summaries: the last quantiles as the client sent them (method summary, no bound).',
].join(' ');

export const seriesQuery = z.object({
  percentiles: percentileList
    .optional()
    .describe('percentiles of distributions, in (0, 100], comma-separated (default 50,90,99)'),
});
export type SeriesQuery = z.infer<typeof seriesQuery>;

export const seriesStats = z.object({
  count: z
    .number()
    .describe(
      'samples (timers: sample-rate corrected); counters: data points; sets: distinct members',
    ),
  sum: z
    .number()
    .nullable()
    .describe('counters: the total, sample-rate corrected; timers: sum of values'),
  min: z
    .number()
    .nullable()
    .describe(
      "the least value over the run's window, exact; null when it cannot be known: an OTLP cumulative histogram that began before the run carries its stream's min since start_time, and what was recorded within the run is lost unless the stream's min moved then (see streamMin)",
    ),
  max: z
    .number()
    .nullable()
    .describe(
      'the greatest value over the window, exact; null when it cannot be known (see streamMax)',
    ),
  streamMin: z
    .number()
    .optional()
    .describe(
      "when min is null: the stream's min since its start_time, not the run's; every value of the run is at least this",
    ),
  streamMax: z
    .number()
    .optional()
    .describe(
      "when max is null: the stream's max since its start_time, not the run's; every value of the run is at most this (a percentile in the open-ended bucket is stated as the bucket's lower bound, with this as its upper)",
    ),
  beforeRunMs: z
    .number()
    .optional()
    .describe(
      "when some of the figures were counted over an interval that began before the run started, how long before it (ms): a StatsD flush or OTLP delta interval straddling the start, or a cumulative stream's first increase, counted from its last point before the run or, when it has none, from its start_time (at most one export interval). The figures may include values recorded that long before the run",
    ),
  last: z.number().nullable().describe('gauges: the last value, deltas applied'),
  lastExact: z
    .string()
    .optional()
    .describe(
      "gauges: the last value as exact decimal text, when it is an integer beyond float8's 2^53 (an OTLP int64, or a StatsD gauge written as a whole number, e.g. Envoy's uint64 version hashes; deltas applied exactly)",
    ),
  percentiles: z.array(quantileValue).optional().describe(DISTRIBUTION_PERCENTILES),
});
export type SeriesStats = z.infer<typeof seriesStats>;

export const series = z.object({
  id: z.string().describe('series id, unique in the run'),
  name: z.string(),
  kind: seriesKind,
  source: seriesSource,
  unit: z.string().nullable(),
  tags: z.record(z.string(), z.string()),
  stats: seriesStats.describe("over the run's window"),
});
export type Series = z.infer<typeof series>;
export const seriesList = z.array(series);

/** GET /runs/{id}/series/{seriesId}/exemplars: what remote write sent with the points. */
export const exemplarsQuery = z.object({
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .max(10_000)
    .default(1000)
    .describe('at most this many, the latest'),
});
export type ExemplarsQuery = z.infer<typeof exemplarsQuery>;

export const seriesExemplar = z.object({
  t: z.string().describe("the exemplar's own time, RFC 3339"),
  offsetMs: z.number().describe('ms since the run started'),
  value: z
    .union([z.number(), z.enum(['NaN', '+Inf', '-Inf'])])
    .describe('the exact value observed (JSON has no NaN or infinities: those as text)'),
  labels: z
    .record(z.string(), z.string())
    .describe('its labels as sent, e.g. trace_id and span_id'),
});
export type SeriesExemplar = z.infer<typeof seriesExemplar>;
export const seriesExemplars = z.array(seriesExemplar);

export const pointsQuery = z.object({
  points: z.coerce.number().int().min(2).max(20_000).default(1000),
  percentiles: percentileList
    .optional()
    .describe(
      "percentiles of distributions, in (0, 100], comma-separated: the series' stats and each point's `percentiles` (default 50,90,99 for the stats, none per point)",
    ),
});
export type PointsQuery = z.infer<typeof pointsQuery>;

export const seriesPoint = z.object({
  t: z.string().describe('start of the bucket, RFC 3339'),
  offsetMs: z.number().describe('start of the bucket, ms since the run started'),
  value: z
    .number()
    .nullable()
    .describe(
      'counters: increase in the bucket; gauges: last value; sets: distinct members; timers: mean',
    ),
  min: z.number().nullable().optional(),
  max: z.number().nullable().optional(),
  count: z.number().optional(),
  ratePerSec: z.number().optional().describe('counters: increase per second'),
  p50: z
    .number()
    .optional()
    .describe(
      "distributions: the bucket's nearest-rank P50 (P90, P99 alike); ask `?percentiles=` for each bucket's percentiles with their method and bound",
    ),
  p90: z.number().optional(),
  p99: z.number().optional(),
  percentiles: z
    .array(quantileValue)
    .optional()
    .describe(
      `distributions, when \`?percentiles\` asks: the bucket's own. ${DISTRIBUTION_PERCENTILES}`,
    ),
  quantiles: z
    .array(quantileValue)
    .optional()
    .describe("summaries: the bucket's last quantiles as the client sent them (method summary)"),
});
export type SeriesPoint = z.infer<typeof seriesPoint>;

export const seriesPoints = z.object({
  series,
  bucketMs: z.number(),
  points: z.array(seriesPoint),
});
export type SeriesPoints = z.infer<typeof seriesPoints>;

export const timelineQuery = z.object({
  points: z.coerce.number().int().min(2).max(10_000).default(1000),
  series: z
    .string()
    .regex(/^\d+(,\d+)*$/, 'must be a comma-separated list of series ids')
    .optional()
    .describe('the series to include (default: every series of the run)'),
});
export type TimelineQuery = z.infer<typeof timelineQuery>;

export const timeTo = z.object({
  percent: z.number(),
  offsetMs: z.number().nullable().describe('null when the phase never got there'),
});

export const timelinePhase = z.object({
  phase: z.string(),
  count: z.number().int().describe('distinct entities that reached the phase'),
  total: z.number().int(),
  totalSource: z
    .enum(['attrs', 'topology', 'observed'])
    .describe(
      "where the total comes from: an event's attrs.total, the run's topology, or the count seen",
    ),
  timeTo: z.array(timeTo),
  points: z.array(
    z.object({
      offsetMs: z.number(),
      count: z.number().int().describe('cumulative at the end of the bucket'),
      ratePerSec: z.number(),
    }),
  ),
});
export type TimelinePhase = z.infer<typeof timelinePhase>;

export const timelineSeries = series.omit({ stats: true }).extend({
  points: z.array(
    z.object({
      offsetMs: z.number(),
      value: z.number().nullable(),
      min: z.number().nullable(),
      max: z.number().nullable(),
      quantiles: z
        .array(quantileValue)
        .optional()
        .describe("summaries: the bucket's last quantiles as the client sent them"),
    }),
  ),
  levels: z
    .object({
      peak: z
        .number()
        .nullable()
        .describe("the largest value in the run (each stored interval's max, so spikes count)"),
      steady: z
        .number()
        .nullable()
        .describe(
          'the mean of the stored values (one per flush interval or OTLP point; of a CPU-seconds counter, its rates over intervals that began) from `steadyFrom.offsetMs` (the end of the ramp) to the end of the run; null without lifecycle phases or without values after the ramp',
        ),
      unit: z
        .string()
        .nullable()
        .optional()
        .describe(
          '"cores" for a counter of CPU seconds (process_cpu_seconds_total: each increase over the time it accrued in), else the series\' own unit',
        ),
    })
    .optional()
    .describe(
      'levels (gauges, up-down counters) and counters of CPU seconds (as cores): peak and steady value',
    ),
});

export const timeline = z.object({
  startedAt: z.string(),
  finishedAt: z.string().nullable(),
  durationMs: z.number().describe('the axis: 0 (run start) to durationMs'),
  bucketMs: z.number(),
  steadyFrom: z
    .object({
      phase: z.string(),
      offsetMs: z.number(),
      reached: z
        .boolean()
        .optional()
        .describe(
          'false: that phase never reached 100 % of its total; offsetMs is its last arrival',
        ),
    })
    .nullable()
    .optional()
    .describe(
      "the end of the ramp: when the last lifecycle phase reached 100 % of its total (nodes joined, pods scheduled and running...; for a phase that never did, its last first arrival), ms since the run started; the series' steady levels are taken from here on. null when the run has no lifecycle phase; absent in reports frozen before it was computed (those before this rule took the last join)",
    ),
  phases: z.array(timelinePhase),
  series: z.array(timelineSeries),
});
export type Timeline = z.infer<typeof timeline>;

export const statsdStats = z.object({
  enabled: z.boolean(),
  udpPort: z.number().int().nullable(),
  tcpPort: z.number().int().nullable(),
  udpReceiver: z
    .enum(['batch', 'dgram'])
    .nullable()
    .describe(
      'batch: datagrams read in batches by recvmmsg (the udp-batch addon); dgram: node:dgram',
    ),
  datagrams: z.number().int(),
  lines: z.number().int(),
  samples: z.number().int(),
  malformed: z.number().int(),
  lastMalformed: z.string().nullable(),
  events: z.number().int(),
  serviceChecks: z.number().int(),
  unmatched: z
    .number()
    .int()
    .describe(
      "aggregates not stored: a run tag the listener may not write (another project's run, or none), outside the run's window, or over an interval's series bound",
    ),
  held: z
    .number()
    .int()
    .describe('aggregates that matched no run yet, kept for a run of their environment to claim'),
  project: z
    .string()
    .nullable()
    .describe('the project the listener is bound to (STATSD_PROJECT); null: any project'),
  rowsWritten: z.number().int(),
  flushErrors: z
    .number()
    .int()
    .describe(
      'writes of aggregated points that failed (each retried; see droppedSamples for loss)',
    ),
  backlogPoints: z
    .number()
    .int()
    .describe(
      'points (one per series and interval) aggregated and not yet written: kept while the database cannot take them',
    ),
  backlogSamples: z.number().int().describe('the samples those points hold'),
  backlogMaxPoints: z
    .number()
    .int()
    .describe('the bound on backlogPoints (MESHBENCH_STATSD_BACKLOG_MAX_POINTS)'),
  droppedPoints: z
    .number()
    .int()
    .describe(
      'points never written: past the backlog bound, or refused by the database one by one',
    ),
  droppedSamples: z
    .number()
    .int()
    .describe('the samples (values and set members received) those dropped points held'),
  otlp: z.object({
    requests: z.number().int(),
    dataPoints: z.number().int(),
    rejected: z.number().int(),
    held: z.number().int().describe('data points that matched no run yet, kept for a run to claim'),
    duplicates: z.number().int().describe('data points stored before (retried exports)'),
    overloaded: z.number().int(),
  }),
});
export type StatsdStats = z.infer<typeof statsdStats>;

/** Requests of one upload path (the events API, result files) this replica has answered. */
export const uploadCounters = z.object({
  stored: z.number().int().describe('requests stored (batches, files)'),
  items: z.number().int().describe('events, or load results, they stored'),
  duplicates: z
    .number()
    .int()
    .describe('retries acknowledged under an Idempotency-Key already stored, nothing stored again'),
  rejected: z.number().int().describe('requests answered with a 4xx: nothing of them stored'),
  lastRejection: z
    .object({
      at: z.string(),
      status: z.number().int(),
      message: z.string(),
    })
    .nullable(),
});
export type UploadCounters = z.infer<typeof uploadCounters>;

/** POST /api/v1/write (Prometheus remote write) as this replica has answered it. */
export const prometheusWriteStats = z.object({
  requests: z.number().int(),
  samples: z.number().int().describe('float samples received'),
  histograms: z.number().int().describe('native histogram samples received'),
  exemplars: z.number().int().describe('exemplars received'),
  written: z
    .number()
    .int()
    .describe(
      'samples, histogram samples and exemplars written (stored, held for a later run, or stored before)',
    ),
  refused: z
    .number()
    .int()
    .describe('samples, histogram samples and exemplars not written (a 400)'),
  notStored: z
    .number()
    .int()
    .describe('samples acknowledged and not stored: stale markers, NaN and infinite values'),
  held: z.number().int().describe('points that matched no run yet, kept for a run to claim'),
  duplicates: z.number().int().describe('points stored before (retried requests)'),
  overloaded: z.number().int().describe('requests answered 503 at capacity'),
});
export type PrometheusWriteStats = z.infer<typeof prometheusWriteStats>;

export const otlpLogsStats = z.object({
  requests: z.number().int(),
  records: z.number().int().describe('log records received'),
  events: z.number().int().describe('probe events stored from meshbench.* log records'),
  rejected: z
    .number()
    .int()
    .describe('log records rejected: not a meshbench event, or no run the token may write'),
  duplicates: z.number().int().describe('events stored before (retried exports), stored once'),
});
export type OtlpLogsStats = z.infer<typeof otlpLogsStats>;

export const ingestStats = z.object({
  messagesShown: z
    .enum(['all', 'project', 'none'])
    .describe(
      "whose last rejection and last malformed line are shown: all (the admin token), the token's project, or none (no token)",
    ),
  statsd: statsdStats,
  prometheus: prometheusWriteStats.describe('POST /api/v1/write (Prometheus remote write)'),
  otlpLogs: otlpLogsStats.describe('POST /v1/logs (probe events as OpenTelemetry logs)'),
  events: uploadCounters,
  results: uploadCounters,
});
export type IngestStats = z.infer<typeof ingestStats>;

/**
 * POST /v1/metrics as JSON: OTLP's ExportMetricsServiceResponse (opentelemetry-proto,
 * collector/metrics/v1/metrics_service.proto). proto3 JSON omits empty fields, and an
 * int64 may be written as a string.
 */
export const otlpExportMetricsResponse = z.object({
  partialSuccess: z
    .object({
      rejectedDataPoints: z.union([z.number().int(), z.string().regex(/^-?\d+$/)]).optional(),
      errorMessage: z.string().optional(),
    })
    .optional(),
});
export type OtlpExportMetricsResponse = z.infer<typeof otlpExportMetricsResponse>;

/**
 * POST /v1/logs as JSON: OTLP's ExportLogsServiceResponse (opentelemetry-proto,
 * collector/logs/v1/logs_service.proto).
 */
export const otlpExportLogsResponse = z.object({
  partialSuccess: z
    .object({
      rejectedLogRecords: z.union([z.number().int(), z.string().regex(/^-?\d+$/)]).optional(),
      errorMessage: z.string().optional(),
    })
    .optional(),
});
export type OtlpExportLogsResponse = z.infer<typeof otlpExportLogsResponse>;

/**
 * What OTLP/HTTP answers a refused request with: a google.rpc.Status (code, message,
 * details), encoded like the request (JSON here; protobuf for a protobuf request), as the
 * OTLP specification's "Failures" section asks, not the API's own error body.
 */
export const otlpStatus = z.object({
  code: z.number().int(),
  message: z.string(),
  details: z.array(z.unknown()).optional(),
});
export type OtlpStatus = z.infer<typeof otlpStatus>;
