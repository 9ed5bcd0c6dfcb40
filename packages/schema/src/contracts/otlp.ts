// The OTLP/HTTP receivers, at the paths the OTLP specification gives them (the server's root).
import { defineRoutes } from '../contract.ts';

const METRICS_DESCRIPTION =
  "OTLP/HTTP metrics export (ExportMetricsServiceRequest) as `application/x-protobuf` or `application/json`, `Content-Encoding: gzip` allowed. Data points go to runs of the token's project (the admin's: any): a point names its run by the attribute `meshbench.run` (run id or slug), else is matched by `deployment.environment` and the run's time window. Refused points are counted in `partial_success.rejected_data_points` with the reasons in `error_message`: a run the token may not write (or none), a point outside its run's window (a cumulative point before the start is kept as the reference of the run's first increase), times outside 1970-9999, names over 1024 bytes, attribute values over 4096 bytes. Points that match no run yet are kept (MESHBENCH_UNMATCHED_RETENTION_MS) for a run of their environment created later to claim, and named in `error_message` without being rejected; a point stored before (a retried export: same series, time and start) is stored once. Delta points cover [start_time_unix_nano, time_unix_nano]. Failures the exporter should retry are 503 with `Retry-After` (seconds), a status OTLP exporters retry: the database unavailable (e.g. restarting; 2 s), or the replica at capacity (1 s): more than MESHBENCH_MAX_CONCURRENT_OTLP requests being decoded and stored, four times as many bodies arriving, or four times MESHBENCH_OTLP_MAX_BYTES of bodies held. A body that has not arrived whole within MESHBENCH_OTLP_BODY_DEADLINE_MS gets 408.";

const LOGS_DESCRIPTION =
  "OTLP/HTTP logs export (ExportLogsServiceRequest) as `application/x-protobuf` or `application/json`, `Content-Encoding: gzip` allowed: probe events sent as OpenTelemetry events. A log record named `meshbench.change`, `meshbench.observation`, `meshbench.incident`, `meshbench.lifecycle` or `meshbench.clock` (LogRecord `event_name`, or the attribute `event.name`) is the probe event POST /api/v1/runs/{id}/events takes: its fields are the record's attributes of the same names (`attrs.<key>` into `attrs`; other dotted names, such as `log.file.name`, are not part of the event), its time (`at`, an incident's `from`) the record's `time_unix_nano`, else `observed_time_unix_nano` (to the microsecond, digits past it dropped as the events API drops them). Its run is the attribute `meshbench.run` (run id or slug) of the record, else of its scope, else of its resource; else the run of the resource's `deployment.environment(.name)` whose window holds the record's time; a run of the token's project (the admin's: any). Every record is checked as the events API checks an event before anything is stored: a malformed meshbench event is a 400 naming the record (`resourceLogs[i].scopeLogs[j].logRecords[k]`) and field, and stores nothing. The events of each run are one events-API batch (all stored or none) whose idempotency key is the digest of the events, so a retried export is stored once (acknowledged, and said in `error_message`); a request whose events go to several runs is one transaction: every run's batch is stored, or none. Records that are not meshbench events, or that name a run that does not exist or the token may not write, or match none, are counted in `partial_success.rejected_log_records` with the reasons in `error_message`. Failures the exporter should retry are 503 with `Retry-After`, as on /v1/metrics.";

export const otlpRoutes = defineRoutes({
  metrics: {
    method: 'POST',
    path: '/v1/metrics',
    tags: ['otlp'],
    summary: 'OTLP/HTTP metrics export',
    root: true,
    bodyBytes: true,
    description: METRICS_DESCRIPTION,
    responses: {},
    bearer: true,
  },
  logs: {
    method: 'POST',
    path: '/v1/logs',
    tags: ['otlp'],
    summary: 'OTLP/HTTP logs export',
    root: true,
    bodyBytes: true,
    description: LOGS_DESCRIPTION,
    responses: {},
    bearer: true,
  },
});
