// Prometheus remote write (1.0 and 2.0): the URL for a Prometheus server's remote_write.
import { defineRoutes } from '../contract.ts';

export const prometheusRoutes = defineRoutes({
  write: {
    method: 'POST',
    path: '/write',
    tags: ['prometheus'],
    summary: 'Prometheus remote write (1.0 and 2.0)',
    description:
      "The URL for Prometheus' `remote_write.url`, with the token as `authorization: {credentials: <token>}`. A snappy block-compressed (`Content-Encoding: snappy`) protobuf body chosen by Content-Type: `application/x-protobuf` or `application/x-protobuf;proto=prometheus.WriteRequest` is Remote-Write 1.0, `application/x-protobuf;proto=io.prometheus.write.v2.Request` is 2.0 (symbols, per-sample `start_timestamp`, native histograms, metadata); other types or encodings get 415. Samples go to runs of the token's project (the admin's: any): the label `meshbench_run` (a run id or slug) names the run, else the label `env` with the sample's time picks the run of that environment whose window holds it; samples that match no run yet are kept (MESHBENCH_UNMATCHED_RETENTION_MS) for a run created later to claim. Labels become tags. Counters and histograms are cumulative, kept with their start (`start_timestamp`; unknown in 1.0) and read as the run's increase across resets. A classic histogram family (`_bucket{le}`, `_sum`, `_count`) becomes one histogram series with explicit buckets; a summary family one summary series; native histograms keep their schema and buckets (exponential, or custom buckets as explicit bounds); a gauge histogram (ResetHint GAUGE, or a series typed GAUGEHISTOGRAM) is a `gauge_histogram` series, each sample a distribution at its time, never added up (the run's figures are its last sample's). The type is the request's metadata (1.0 metadata is also kept per metric family and token's project, and read for later requests that carry none, as Prometheus sends it apart), else named by the series (`_bucket` with `le`, `quantile`, `_total` a counter, else a gauge). Stale markers, NaN and infinite samples are acknowledged and not stored. Exemplars are kept with the point their series' last sample in the request made (GET /runs/{id}/series/{seriesId}/exemplars); each needs a timestamp. All written: 204, to 2.0 requests with `X-Prometheus-Remote-Write-Samples-Written`, `-Histograms-Written`, `-Exemplars-Written` (1.0 senders must not rely on them, and get none, as from Prometheus' own receiver). Anything not written (no `__name__`, a run the token may not write, outside the run's window, an invalid histogram, an exemplar without a time or a sample): 400 with the reasons as text and the headers counting what was written; a retried request (same series, time and start) is stored once. The database unavailable (2 s) or the replica at capacity (1 s; MESHBENCH_MAX_CONCURRENT_OTLP, as OTLP): 503 with `Retry-After`, which Prometheus retries.",
    bodyBytes: true,
    responses: {},
    bearer: true,
  },
});
