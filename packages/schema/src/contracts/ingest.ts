// The ingest group: the StatsD listener's and the uploads' counters.
import { defineRoutes } from '../contract.ts';
import { ingestStats, statsdStats } from '../metrics.ts';

export const ingestRoutes = defineRoutes({
  statsdStats: {
    method: 'GET',
    path: '/statsd/stats',
    tags: ['metrics'],
    summary: "This replica's StatsD and OTLP counters",
    description:
      "This replica's StatsD listener and OTLP receiver counters: lines, malformed lines, events, unmatched aggregates, rows written. The last malformed line is shown to the admin token only (StatsD lines carry no project).",
    responses: { 200: statsdStats },
  },
  ingestStats: {
    method: 'GET',
    path: '/ingest/stats',
    tags: ['metrics'],
    summary: 'What this replica has received on every ingest path',
    description:
      "What this replica has received on every ingest path since it started: StatsD and OTLP (as /statsd/stats), Prometheus remote write, OTLP logs, and the events API's and result uploads' requests stored, retried and rejected, with the last rejection's message. Messages are scoped to the caller: the admin token sees the replica's last rejection and malformed line, a project's token its own project's last rejection, no token none.",
    responses: { 200: ingestStats },
  },
});
