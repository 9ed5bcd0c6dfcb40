// The load results group: result files posted as the runner wrote them, read back as load results.
import { z } from 'zod';
import { defineRoutes } from '../contract.ts';
import { apiError } from '../errors.ts';
import { importResultsQuery, importResultsResponse, listResultsQuery } from '../load-results.ts';
import { loadStages, stagesQuery, storedLoadResult } from '../results-api.ts';

const runParams = z.object({ id: z.string().min(1).describe('run id or share slug') });

export const resultsRoutes = defineRoutes({
  import: {
    method: 'POST',
    path: '/runs/:id/results',
    tags: ['load results'],
    summary: "Import a load generator's result file",
    bodyBytes: true,
    description:
      "A load generator's result file as it is: Fortio JSON, Nighthawk JSON, a k6 summary (legacy or new), a wrk2 report, a wg/wrk 4 report (`wrk`: its percentiles as wrk printed them, told from wrk2's by the absence of wrk2's calibration lines and HdrHistogram distribution), an SMP result (YAML or JSON), an Istio perf CSV, oha's JSON summary (`oha`: its own percentiles, no samples), a load generator's raw samples (`hey`: hey's `-o csv`, `jmeter`: JMeter's JTL CSV, with or without its header, `vegeta`: Vegeta's JSON results, `gatling`: Gatling's simulation.log, the text one up to 3.12 or the binary one of 3.13 on; `ghz`: ghz's JSON report, whose `details` are read whole as a document; read as they arrive like a k6 stream, percentiles at the nearest rank over the file's values with the tool's rounding as [lower, upper]), Locust's files (`locust`: its `--csv` files `_stats.csv`, `_stats_history.csv` (only its cumulative Total columns: its rates and percentiles are of a trailing window), `_failures.csv`, `_exceptions.csv`, the pre-0.14 `_requests.csv` and `_distribution.csv`, or its `--json` output, whose response-time buckets give nearest-rank percentiles; every Locust percentile is `tool-histogram` with the bound Locust's rounding and rank leave; `mode`, `connections` (its users) and `targetRps` from the query apply to a Locust file's points, which do not say them) or an HdrHistogram interval log (`hdr-log`: what HistogramLogWriter, jHiccup and wrk2's HDR-logging forks write; told by its `#[StartTime:`, `#[Histogram log format version`, `Tag=` or interval lines). An interval log's step (mode, connections, targetRps: the step's whole target rate) and `generator` come from each line's Tag (`Tag=mode:both;connections:64;targetRps:1000;generator:g1`, or a bare word for the mode) or else from the query; each step and generator becomes one load result holding the step's merged histogram, and each line one interval of it. `generatorCpu` (the generator's CPU use, 0..1) and `unit` (ns, us or ms; by default told from Interval_Max) apply to interval logs only. `format=auto` (the default) tells them apart by content (the kind from the first 64 KiB: JSON, YAML, wrk2 text or CSV); a file it cannot tell is 415 `undetectable`, its message listing every `format` value read. `Content-Encoding: gzip` allowed. All points of the file are stored, or none. A k6 `--out json` stream (`format=k6-ndjson`, or `auto` when its first line is a k6 Metric or Point object) is read line by line as it arrives, never held whole: up to `MESHBENCH_MAX_STREAM_RESULT_BYTES` after decompression (default 4 GiB) and `MESHBENCH_MAX_RESULT_BYTES` a line, its points stored only once its last line is read (a stream refused, or one the client stops sending, stores nothing). Limits of the other formats: `MESHBENCH_MAX_RESULT_BYTES` after decompression (default 8 MiB), 1 MiB for a YAML file, 10,000 load results a file, 1,000 percentiles or histogram buckets a result; past them 413. A YAML file that takes more than 5 s or 128 MB to parse gets 422. A k6 stream whose last line is cut off (no newline, not a whole JSON object) is stored without that line, and the answer says where (`truncated`). A file stored before on the run is not stored again: the same `Idempotency-Key` with the same file, or a byte-identical body (as sent: the same file, compressed the same way) with the same step parameters, is answered 200 with the first upload's answer and `duplicate: true` (the same key with another file: 422). `notes` say what the numbers alone do not (a point no request was sent for, crossed k6 thresholds, a cut stream). While the database is unavailable (e.g. restarting), or the server already works on `MESHBENCH_MAX_CONCURRENT_RESULT_UPLOADS` files (or, while another project sends files too, on its project's share `MESHBENCH_MAX_CONCURRENT_RESULT_UPLOADS_PER_PROJECT`), the answer is 503 with `Retry-After`.",
    params: runParams,
    query: importResultsQuery,
    headers: z.object({
      'idempotency-key': z
        .string()
        .min(1)
        .max(200)
        .optional()
        .describe(
          'names this upload: sent again with the same key and the same file (a retry after a lost answer), it is answered as first (200, duplicate: true) and stored once; the same key with another file is 422',
        ),
    }),
    responses: {
      200: importResultsResponse,
      201: importResultsResponse,
      400: apiError,
      401: apiError,
      404: apiError,
      413: apiError,
      415: apiError,
      422: apiError,
      503: apiError,
    },
    bearer: true,
  },
  list: {
    method: 'GET',
    path: '/runs/:id/results',
    tags: ['load results'],
    summary: "A run's data-plane load results",
    params: runParams,
    query: listResultsQuery,
    responses: { 200: z.array(storedLoadResult), 400: apiError, 404: apiError },
  },
  stages: {
    method: 'GET',
    path: '/runs/:id/results/stages',
    tags: ['load results'],
    summary: "A run's interval data over time (stages)",
    description:
      "A run's interval data over time (HdrHistogram interval logs): every generator's intervals merged per slot (interval start rounded to the nearest multiple of intervalMs, the logs' most common interval length), across all steps in time order, and one summary per step. Percentiles are of the merged HdrHistograms (method 'hdr', within the histograms' significant digits, [lower, upper] the bucket). A run without interval data gives empty arrays.",
    params: runParams,
    query: stagesQuery,
    responses: { 200: loadStages, 400: apiError, 404: apiError },
  },
});
