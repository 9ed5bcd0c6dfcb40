// Load results: data-plane load test points imported from runners' result files.
import { z } from 'zod';
import { percentileList } from './accuracy.ts';
import { histogramBin, percentileValue } from './propagation.ts';
import { INT4_MAX, timestamp } from './time.ts';

export const resultFormat = z
  .enum([
    'fortio',
    'nighthawk',
    'k6',
    'k6-ndjson',
    'wrk2',
    'smp',
    'istio-csv',
    'hdr-log',
    'hey',
    'jmeter',
    'locust',
    'wrk',
    'vegeta',
    'gatling',
    'oha',
    'ghz',
  ])
  .describe(
    "the runner whose result file is posted; k6-ndjson is k6's --out json stream of samples, hdr-log an HdrHistogram interval log, hey hey's -o csv and jmeter JMeter's JTL CSV (one line a request), locust Locust's --csv files or its --json output, vegeta Vegeta's results (vegeta attack's binary gob output, or JSON lines), gatling Gatling's simulation.log (text up to 3.12, one line a request, or binary from 3.13), ghz ghz's JSON report, oha oha's --output-format json summary, wrk wg/wrk 4's text report (wrk2 is giltene/wrk2's)",
  );
export type ResultFormat = z.infer<typeof resultFormat>;

export const resultFormats = resultFormat.options;

/**
 * How the API's message for a file whose format it cannot tell (415 undetectable) ends, in
 * its terms; the CLI and the upload form put theirs (--format, the Format list) in its place.
 */
export const FORMAT_HINT = 'pass ?format= to name it';

/** The mode of a point whose source does not name one. */
export const UNSPECIFIED_MODE = 'unspecified';

const count = z.number().int().nonnegative();

/** A threshold the load generator judged, with its verdict (k6's `thresholds` option). */
export const runnerThreshold = z.object({
  metric: z
    .string()
    .describe(
      'the metric (or sub-metric) it is on, e.g. http_req_duration{expected_response:true}',
    ),
  threshold: z.string().describe('its expression as written, e.g. p(95)<500'),
  ok: z.boolean().describe('true: it held; false: it was crossed (k6 failed the test on it)'),
});
export type RunnerThreshold = z.infer<typeof runnerThreshold>;
const ms = z.number().nonnegative();

export const loadResult = z.object({
  mode: z
    .string()
    .min(1)
    .max(200)
    .describe(
      `where the sidecars ran: baseline, serveronly, clientonly, both, or the source's own label; "${UNSPECIFIED_MODE}" when the source does not say`,
    )
    .meta({ example: 'both' }),
  connections: count
    .max(INT4_MAX)
    .nullable()
    .describe('concurrent connections (Fortio threads, k6 VUs)'),
  targetRps: z
    .number()
    .nonnegative()
    .nullable()
    .describe('requested rate; null for "max" or unknown'),
  achievedRps: z.number().nonnegative().nullable().describe('rate the runner reports it achieved'),
  durationMs: ms.nullable().describe('how long the load ran, as the runner measured it'),
  requests: count.nullable().describe('requests the runner timed (its latency sample count)'),
  errors: count
    .nullable()
    .describe(
      'failed requests as the runner counts them; may include requests that never got a response (e.g. pool overflow), so it can exceed requests',
    ),
  errorsByCode: z
    .record(z.string(), count)
    .describe('non-zero failure counts by status code or failure kind, e.g. {"503": 4, "-1": 2}'),
  percentiles: z
    .array(percentileValue)
    .describe(
      "latency percentiles, p in [0, 100], ascending. method 'reported': as the tool computed and printed it (Fortio, k6 and Istio's CSV interpolate between values; no bound known); 'hdr': from the tool's HdrHistogram (wrk2: 3 significant digits before printing); 'tool-histogram': computed here at the nearest rank from the tool's own histogram buckets (Fortio), the true value within [lower, upper], the value interpolated linearly inside that bucket; 'raw': a raw-sample file (hey, JMeter, Vegeta, ghz with details), nearest rank over the file's values, exact: false with the tool's recording resolution as [lower, upper] (hey ±0.05 ms, JMeter ±1 ms, Vegeta and ghz +1 µs); wrk 4's are 'reported' (its own rank rule, printed to 2 decimals)",
    ),
  histogram: z
    .array(histogramBin)
    .nullable()
    .describe('latency histogram as the source states it; null when it has none'),
  minMs: ms
    .nullable()
    .describe(
      "fastest request as the runner timed it; for an HdrHistogram interval log (which keeps no sample) the histogram's lowest bucket, so within the bucket width (see P100's bounds for the max). A step of several generators takes the least of theirs",
    ),
  meanMs: ms
    .nullable()
    .describe(
      "mean latency; k6's NDJSON stream: of every sample, exactly; an HdrHistogram interval log: of the histogram's bucket values. Several generators: weighted by their requests",
    ),
  maxMs: ms
    .nullable()
    .describe(
      "slowest request as the runner timed it; for an HdrHistogram interval log the top of the histogram's highest bucket. Several generators: the largest of theirs",
    ),
  stdDevMs: ms
    .nullable()
    .describe(
      'population standard deviation; several generators: pooled from theirs (within and between generators)',
    ),
  clientCpuCores: z.number().nonnegative().nullable().describe('client-side proxy CPU, average'),
  serverCpuCores: z.number().nonnegative().nullable().describe('server-side proxy CPU, average'),
  clientMemMiB: z.number().nonnegative().nullable().describe('client-side proxy memory, average'),
  serverMemMiB: z.number().nonnegative().nullable().describe('server-side proxy memory, average'),
  clientCpuCoresMax: z.number().nonnegative().nullable().describe('client-side proxy CPU, peak'),
  serverCpuCoresMax: z.number().nonnegative().nullable().describe('server-side proxy CPU, peak'),
  clientMemMiBMax: z.number().nonnegative().nullable().describe('client-side proxy memory, peak'),
  serverMemMiBMax: z.number().nonnegative().nullable().describe('server-side proxy memory, peak'),
  labels: z
    .record(z.string(), z.string())
    .describe('what the source says about the point: url, runner version, its own label text...'),
  thresholds: z
    .array(runnerThreshold)
    .nullable()
    .describe(
      "the runner's own verdict on its thresholds, as it judged them (k6 summaries: every threshold of every metric, in the file's order); null when the file holds none",
    ),
  startedAt: timestamp.nullable(),
});
export type LoadResult = z.infer<typeof loadResult>;

export const listResultsQuery = z.object({
  percentiles: percentileList
    .optional()
    .describe(
      "percentiles to add where a result's file lacks them and it has a histogram (Fortio): computed at the nearest rank from the histogram's buckets, method 'tool-histogram' with the bucket as [lower, upper]. Those the file states are returned as stated.",
    ),
});
export type ListResultsQuery = z.infer<typeof listResultsQuery>;

/** The unit an HdrHistogram log's values were recorded in. */
export const hdrValueUnit = z.enum(['ns', 'us', 'ms']);
export type HdrValueUnit = z.infer<typeof hdrValueUnit>;

// The step query parameters apply to interval formats (hdr-log) only, for lines whose Tag
// does not say (mode, connections and targetRps also to a Locust file, which never says them);
// their meaning is in the import route's description and docs/results.md.
export const importResultsQuery = z.object({
  format: z.union([resultFormat, z.literal('auto')]).default('auto'),
  mode: z.string().min(1).max(200).optional(),
  connections: z.coerce.number().int().nonnegative().max(INT4_MAX).optional(),
  targetRps: z.coerce.number().nonnegative().optional(),
  generator: z.string().min(1).max(200).optional(),
  generatorCpu: z.coerce.number().min(0).max(1).optional(),
  unit: hdrValueUnit.optional(),
});
export type ImportResultsQuery = z.infer<typeof importResultsQuery>;

export const importResultsResponse = z.object({
  format: resultFormat,
  imported: z
    .number()
    .int()
    .describe('load results stored from the file (for a duplicate: by its first upload)'),
  unmapped: z
    .array(z.string())
    .describe('source fields that have no place in a load result and were not stored'),
  duplicate: z
    .boolean()
    .describe(
      "true when this upload was stored before on the run: the same Idempotency-Key with the same file, or a byte-identical body (as sent: the same file, compressed the same way) with the same step parameters. Nothing is stored again; the answer is the first upload's",
    ),
  truncated: z
    .object({
      line: z.number().int().describe('the line the file ends inside (1-based)'),
      byte: z.number().int().describe("that line's first byte in the file (1-based, decompressed)"),
    })
    .nullable()
    .describe(
      'a k6 --out json stream whose last line is cut off (k6 stopped while writing it): the complete lines before it are stored, that line is not',
    ),
  notes: z
    .array(z.string())
    .describe(
      "what the file says that the numbers alone do not: a point no request was sent for, the runner's crossed thresholds, where a stream was cut",
    ),
});
export type ImportResultsResponse = z.infer<typeof importResultsResponse>;
