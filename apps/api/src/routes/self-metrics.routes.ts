// GET /metrics: this replica's own metrics in the Prometheus text format, for whoever
// watches meshbench itself: the StatsD listener's, the OTLP and remote-write receivers' counters
// (malformed lines, unmatched aggregates, flush errors, overload among them), the uploads
// of events and result files (stored, retried, rejected), and the process's CPU, memory,
// garbage collection and event-loop lag. The same counters as GET /api/v1/ingest/stats,
// read at each scrape.

import { selfMetricsRoutes as c } from '@meshbench/schema';
import type { FastifyInstance, FastifyPluginAsync } from 'fastify';
import client from 'prom-client';
import { fromContract } from './contract-route.ts';

/** Process metrics are the process's, whatever app is scraped: collected once. */
let processRegistry: client.Registry | undefined;
function processMetrics(): client.Registry {
  if (!processRegistry) {
    processRegistry = new client.Registry();
    client.collectDefaultMetrics({ register: processRegistry });
  }
  return processRegistry;
}

/** How each group registers its metrics: counters read at each scrape, into one registry. */
interface Metrics {
  registry: client.Registry;
  counter: (name: string, help: string, read: () => number) => void;
}

/** The StatsD listener's counters, backlog and UDP receiver. */
function statsdMetrics(app: FastifyInstance, { counter, registry }: Metrics) {
  const stats = () => app.statsd.stats();
  counter(
    'meshbench_statsd_datagrams_total',
    'UDP datagrams received by the StatsD listener.',
    () => stats().datagrams,
  );
  counter(
    'meshbench_statsd_lines_total',
    'StatsD lines read (UDP and TCP), malformed ones included.',
    () => stats().lines,
  );
  counter('meshbench_statsd_samples_total', 'StatsD values aggregated.', () => stats().samples);
  counter(
    'meshbench_statsd_malformed_lines_total',
    'StatsD lines dropped as malformed (GET /api/v1/statsd/stats shows the last one and why).',
    () => stats().malformed,
  );
  counter(
    'meshbench_statsd_events_total',
    'DogStatsD events recognised and skipped.',
    () => stats().events,
  );
  counter(
    'meshbench_statsd_service_checks_total',
    'DogStatsD service checks recognised and skipped.',
    () => stats().serviceChecks,
  );
  counter(
    'meshbench_statsd_unmatched_total',
    "StatsD aggregates not stored: a run tag the listener may not write, outside the run's window, or the interval full.",
    () => stats().unmatched,
  );
  counter(
    'meshbench_statsd_held_total',
    'StatsD aggregates that matched no run yet, kept for a run created later to claim.',
    () => stats().held,
  );
  counter(
    'meshbench_statsd_rows_written_total',
    'StatsD aggregates written as metric points.',
    () => stats().rowsWritten,
  );
  counter(
    'meshbench_statsd_flush_errors_total',
    'StatsD writes that failed (the points are kept and retried; dropped ones are counted apart).',
    () => stats().flushErrors,
  );
  counter(
    'meshbench_statsd_dropped_samples_total',
    'StatsD samples (values, set members) never written: past MESHBENCH_STATSD_BACKLOG_MAX_POINTS while the database was away, or refused by it.',
    () => stats().droppedSamples,
  );
  counter(
    'meshbench_statsd_dropped_points_total',
    'StatsD points (one per series and interval) never written, holding those samples.',
    () => stats().droppedPoints,
  );
  new client.Gauge({
    name: 'meshbench_statsd_backlog_points',
    help: 'StatsD points aggregated and waiting to be written (kept while the database cannot take them).',
    registers: [registry],
    collect() {
      this.set(stats().backlogPoints);
    },
  });
  new client.Gauge({
    name: 'meshbench_statsd_backlog_samples',
    help: 'The samples those waiting points hold.',
    registers: [registry],
    collect() {
      this.set(stats().backlogSamples);
    },
  });
  new client.Gauge({
    name: 'meshbench_statsd_udp_receiver',
    help: 'How the StatsD listener reads UDP: batch (the udp-batch reading thread) or dgram.',
    labelNames: ['receiver'],
    registers: [registry],
    collect() {
      this.reset();
      const receiver = stats().udpReceiver;
      if (receiver) this.set({ receiver }, 1);
    },
  });
}

/** The OTLP metrics and logs receivers' counters. */
function otlpMetrics(app: FastifyInstance, { counter }: Metrics) {
  const otlp = () => app.services.otlp.counters;
  counter(
    'meshbench_otlp_requests_total',
    'OTLP/HTTP export requests received.',
    () => otlp().requests,
  );
  counter(
    'meshbench_otlp_data_points_total',
    'OTLP data points received.',
    () => otlp().dataPoints,
  );
  counter(
    'meshbench_otlp_rejected_data_points_total',
    'OTLP data points rejected (partial_success): no value, a run the token may not write, outside the run window, over the limits, unknown type.',
    () => otlp().rejected,
  );
  counter(
    'meshbench_otlp_held_data_points_total',
    'OTLP data points that matched no run yet, kept for a run created later to claim.',
    () => otlp().held,
  );
  counter(
    'meshbench_otlp_duplicate_data_points_total',
    'OTLP data points stored before (retried exports), acknowledged and stored once.',
    () => otlp().duplicates,
  );
  counter(
    'meshbench_otlp_overloaded_total',
    'OTLP requests answered 503 because too many were in progress.',
    () => otlp().overloaded,
  );
  // OTLP logs (POST /v1/logs): probe events sent as OpenTelemetry events.
  const logs = () => app.services.otlpLogs.counters;
  for (const [name, help, read] of [
    ['requests', 'OTLP/HTTP logs export requests received.', () => logs().requests],
    ['records', 'OTLP log records received.', () => logs().records],
    [
      'events',
      'Probe events stored from OTLP log records (meshbench.* events).',
      () => logs().events,
    ],
    [
      'rejected_records',
      'OTLP log records rejected (partial_success): not a meshbench event, or no run the token may write.',
      () => logs().rejected,
    ],
    [
      'duplicate_events',
      'Probe events from OTLP log records stored before (retried exports), acknowledged and stored once.',
      () => logs().duplicates,
    ],
  ] as const) {
    counter(`meshbench_otlp_logs_${name}_total`, help, read);
  }
}

/** Prometheus remote write's counters, its classic histogram parts' among them. */
function remoteWriteMetrics(app: FastifyInstance, { counter }: Metrics) {
  const prw = () => app.services.prometheusWrite.counters;
  const parts = () => app.services.prometheusWrite.histogramPartsCounters;
  for (const [name, help, read] of [
    ['requests', 'Remote-write requests received.', () => prw().requests],
    ['samples', 'Remote-write float samples received.', () => prw().samples],
    ['histograms', 'Remote-write native histogram samples received.', () => prw().histograms],
    ['exemplars', 'Remote-write exemplars received.', () => prw().exemplars],
    [
      'written',
      'Remote-write samples, histogram samples and exemplars written (stored, held for a later run, or stored before).',
      () => prw().written,
    ],
    [
      'refused',
      'Remote-write samples, histogram samples and exemplars not written (answered 400 with the reasons).',
      () => prw().refused,
    ],
    [
      'not_stored',
      'Remote-write samples acknowledged and not stored: stale markers, NaN and infinite values.',
      () => prw().notStored,
    ],
    [
      'held',
      'Remote-write points that matched no run yet, kept for a run created later to claim.',
      () => prw().held,
    ],
    [
      'duplicates',
      'Remote-write points stored before (retried requests), acknowledged and stored once.',
      () => prw().duplicates,
    ],
    [
      'overloaded',
      'Remote-write requests answered 503 + Retry-After at capacity.',
      () => prw().overloaded,
    ],
    [
      'histogram_parts',
      'Parts of classic histogram points split across remote-write requests, merged with the parts other requests brought.',
      () => parts().parts,
    ],
    [
      'histograms_assembled',
      'Classic histogram points assembled from parts that came in several remote-write requests.',
      () => parts().assembled,
    ],
    [
      'histogram_parts_late',
      'Classic histogram parts that came after their point was assembled without them or released: stored as their own series.',
      () => parts().late,
    ],
    [
      'histograms_released',
      'Classic histogram points whose parts never completed: their parts stored as their own series.',
      () => parts().released,
    ],
  ] as const) {
    counter(`meshbench_prometheus_write_${name}_total`, help, read);
  }
}

/** Uploads of events and result files: stored, retried, refused, and the bytes held. */
function uploadMetrics(app: FastifyInstance, { counter, registry }: Metrics) {
  counter(
    'meshbench_events_overloaded_total',
    'Event batches answered 503 because MESHBENCH_MAX_CONCURRENT_BATCHES were in progress (or the project held its share).',
    () => app.services.ingest.counters.overloaded,
  );
  counter(
    'meshbench_held_bytes_refused_total',
    'Requests answered 503 because bodies in progress held MESHBENCH_MAX_HELD_BYTES.',
    () => app.heldBytes.refused(),
  );
  new client.Gauge({
    name: 'meshbench_held_body_bytes',
    help: 'Bytes of request bodies held in memory by requests in progress now (bounded by MESHBENCH_MAX_HELD_BYTES).',
    registers: [registry],
    collect() {
      this.set(app.heldBytes.held());
    },
  });
  for (const path of ['events', 'results'] as const) {
    const c = () => app.services.uploads[path];
    const what = path === 'events' ? 'event batches' : 'result files';
    counter(`meshbench_${path}_stored_total`, `Uploads of ${what} stored.`, () => c().stored);
    counter(
      `meshbench_${path}_${path === 'events' ? 'events' : 'load_results'}_stored_total`,
      `${path === 'events' ? 'Events' : 'Load results'} stored by those uploads.`,
      () => c().items,
    );
    counter(
      `meshbench_${path}_duplicates_total`,
      `Uploads of ${what} retried under an Idempotency-Key already stored.`,
      () => c().duplicates,
    );
    counter(
      `meshbench_${path}_rejected_total`,
      `Uploads of ${what} answered with a 4xx (nothing stored).`,
      () => c().rejected,
    );
  }
}

/** Where reads went when a standby is configured (DATABASE_READ_URL), and its state. */
function standbyMetrics(app: FastifyInstance, { counter, registry }: Metrics) {
  const standby = app.database.standby;
  if (standby) {
    new client.Counter({
      name: 'meshbench_standby_reads_total',
      help: 'Reads that may go to the standby (DATABASE_READ_URL), by where they went and why: standby; or primary because the standby was behind the caller’s write (behind), past MESHBENCH_READ_MAX_LAG_MS (lagging), or away (down).',
      labelNames: ['target', 'reason'],
      registers: [registry],
      collect() {
        this.reset();
        for (const target of ['primary', 'standby'] as const)
          for (const [reason, n] of Object.entries(standby.counts[target])) {
            if (n > 0 || (target === 'standby') === (reason === 'standby'))
              this.inc({ target, reason }, n);
          }
      },
    });
    counter(
      'meshbench_standby_failovers_total',
      'Reads begun on the standby whose queries failed as it went away, finished on the primary.',
      () => standby.counts.failovers,
    );
    counter(
      'meshbench_standby_writes_on_read_total',
      'Statements or transactions of a standby read that wrote (a summary kept on first read), refused by the standby and made again on the primary.',
      () => standby.counts.writesOnRead,
    );
    new client.Gauge({
      name: 'meshbench_standby_up',
      help: 'Whether the standby answered its last probe as a standby in recovery (1) or not (0: reads go to the primary).',
      registers: [registry],
      collect() {
        this.set(standby.state().up ? 1 : 0);
      },
    });
    new client.Gauge({
      name: 'meshbench_standby_lag_bytes',
      help: 'The primary’s flushed WAL minus what the standby has replayed, at the last probe of both.',
      registers: [registry],
      collect() {
        const lag = standby.state().lagBytes;
        if (lag !== undefined) this.set(lag);
      },
    });
  }
}

const routes: FastifyPluginAsync = async (app) => {
  const registry = new client.Registry();
  const counter = (name: string, help: string, read: () => number) => {
    new client.Counter({
      name,
      help,
      registers: [registry],
      collect() {
        this.reset();
        this.inc(read());
      },
    });
  };
  for (const group of [
    statsdMetrics,
    otlpMetrics,
    remoteWriteMetrics,
    uploadMetrics,
    standbyMetrics,
  ])
    group(app, { counter, registry });

  app.route({
    ...fromContract(c.metrics),
    handler: async (_request, reply) => {
      const text = (await registry.metrics()) + (await processMetrics().metrics());
      return reply.type(registry.contentType).send(text);
    },
  });
};
export default routes;
