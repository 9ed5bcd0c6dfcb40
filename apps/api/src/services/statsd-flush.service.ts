// The StatsD flush loop: what the listener receives is parsed and aggregated here for one
// interval; each flush closes the interval, makes its rows in slices (so datagrams are read
// in between) and writes them through the metrics ingest, keeping them in a bounded backlog
// while the database cannot take them. The sockets are the plugin's (plugins/statsd.plugin.ts).
import type { StatsdStats } from '@meshbench/schema';
import type { MetricRecord } from '../domain/metric-record.ts';
import { StatsdAggregator } from '../ingest/statsd/statsd-aggregate.ts';
import { isTransientDbError, StatsdBacklog } from '../ingest/statsd/statsd-backlog.ts';
import { StatsdReader } from '../ingest/statsd/statsd-lines.ts';
import { statsdRecord } from '../ingest/statsd/statsd-record.ts';
import type { MetricsIngestService, WriteScope } from './metrics-ingest.service.ts';

/** Retries of a failed write: from this delay, doubled up to the next, while it fails. */
const RETRY_MIN_MS = 250;
const RETRY_MAX_MS = 5000;
/** Failures with an error that is not the database's absence before a chunk is halved. */
const MAX_FAILURES = 3;
/** Rows are made and written in slices, so datagrams are read in between. */
const SLICE = 250;

interface Log {
  info(msg: string): void;
  warn(o: object | string, msg?: string): void;
  error(o: object | string, msg?: string): void;
}

export type StatsdFlushService = ReturnType<typeof statsdFlushService>;

export function statsdFlushService(deps: {
  ingest: Pick<MetricsIngestService, 'store'>;
  log: Log;
  /** Where the rows may go: the project StatsD is bound to (STATSD_PROJECT), else any. */
  scope: WriteScope;
  flushMs: number;
  /** Points (one per series and interval) kept while the database cannot take them. */
  backlogMaxPoints: number;
}) {
  const { ingest, log, scope } = deps;
  const aggregator = new StatsdAggregator({ flushMs: deps.flushMs });
  const reader = new StatsdReader(aggregator);
  const counters = {
    datagrams: 0,
    lines: 0,
    unmatched: 0,
    held: 0,
    rowsWritten: 0,
    flushErrors: 0,
  };
  let intervalStart = Date.now();
  const yieldToSocket = () => new Promise<void>((resolve) => setImmediate(resolve));
  const backlog = new StatsdBacklog(deps.backlogMaxPoints);
  let closing = false;
  /** The database failed the last write for its absence: the next tries wait. */
  let outage = false;
  let wake: (() => void) | null = null;
  let draining: Promise<void> | null = null;
  /** Intervals closed but not yet made into records (in order). */
  let making: Promise<void> = Promise.resolve();

  /** Writes the backlog, oldest first, until it is empty; retries while the database is away. */
  function drain(): Promise<void> {
    if (draining) return draining;
    draining = (async () => {
      let delay = RETRY_MIN_MS;
      for (let chunk = backlog.head; chunk; chunk = backlog.head) {
        try {
          const result = await ingest.store(chunk.records, scope);
          counters.rowsWritten += result.stored;
          counters.held += result.held;
          for (const n of result.refused.values()) counters.unmatched += n;
          backlog.shift();
          if (outage) {
            outage = false;
            log.info(
              `statsd: the database is back, writing ${backlog.counters.points} points kept meanwhile`,
            );
          }
          delay = RETRY_MIN_MS;
        } catch (error) {
          counters.flushErrors++;
          // A refusal of what was written (SQLSTATE 22: data exception, 23: integrity) is
          // not retried as it is; anything else unknown a few times before it is halved.
          const refusal = /^2[23]/.test(String((error as { code?: unknown }).code ?? ''));
          if (isTransientDbError(error) || (!refusal && ++chunk.failures < MAX_FAILURES)) {
            if (!outage) {
              log.warn(
                { err: error },
                'statsd: writing failed; keeping the points until the database takes them',
              );
            }
            outage = true;
            if (closing) return;
            await new Promise<void>((resolve) => {
              const timer = setTimeout(resolve, delay);
              wake = () => {
                clearTimeout(timer);
                resolve();
              };
            });
            wake = null;
            delay = Math.min(RETRY_MAX_MS, delay * 2);
          } else if (!backlog.isolate()) {
            // One record the database refuses whatever the moment: it alone is dropped.
            log.error({ err: error }, 'statsd: the database refused a point; dropped');
          }
        }
      }
    })().finally(() => {
      draining = null;
    });
    return draining;
  }

  /** Closes the current interval now and waits until every interval so far is written. */
  function flush(): Promise<void> {
    const now = Date.now();
    const closed = aggregator.close(intervalStart, now);
    reader.trim();
    intervalStart = now;
    const n = closed.aggregates.length;
    if (n > 0) {
      making = making.then(async () => {
        const records: MetricRecord[] = [];
        const samples: number[] = [];
        for (let i = 0; i < n; i += SLICE) {
          for (const row of aggregator.rows(closed, i, i + SLICE)) {
            records.push(statsdRecord(row));
            samples.push(row.samples);
          }
          await yieldToSocket();
        }
        const before = backlog.counters.droppedPoints;
        backlog.push(records, samples);
        const dropped = backlog.counters.droppedPoints - before;
        if (dropped > 0) {
          log.warn(
            `statsd: ${dropped} points dropped, ${backlog.counters.points} wait to be written (MESHBENCH_STATSD_BACKLOG_MAX_POINTS)`,
          );
        }
      });
      // A failure here must not stop every later interval from being written.
      making = making.catch((error) => {
        log.error({ err: error }, 'statsd: making rows of an interval failed');
      });
    }
    return making.then(() => drain());
  }

  return {
    /** One datagram, or complete lines from TCP. */
    receive(bytes: Uint8Array): void {
      counters.lines += reader.read(bytes);
    },
    datagram(bytes: Uint8Array): void {
      counters.datagrams++;
      counters.lines += reader.read(bytes);
    },
    /** A line dropped before parsing (a TCP line too long), counted as malformed. */
    malformed(text: string, why: string): void {
      aggregator.malformed(text, why);
    },
    flush,
    /**
     * The last flush (shutdown): one try, no waiting for a database that is away; what is
     * still kept then is lost with the process, and logged.
     */
    async close(): Promise<void> {
      closing = true;
      wake?.();
      await flush();
      if (backlog.counters.points > 0) {
        log.error(
          `statsd: shutting down with ${backlog.counters.points} points (${backlog.counters.samples} samples) not written`,
        );
      }
    },
    /** The counters of what arrived and was written; the listener adds its sockets. */
    stats(): Omit<StatsdStats, 'otlp' | 'enabled' | 'udpPort' | 'tcpPort' | 'udpReceiver'> {
      return {
        datagrams: counters.datagrams,
        lines: counters.lines,
        samples: aggregator.counters.samples,
        malformed: aggregator.counters.malformed,
        lastMalformed: aggregator.counters.lastMalformed,
        events: aggregator.counters.events,
        serviceChecks: aggregator.counters.serviceChecks,
        unmatched: counters.unmatched + aggregator.counters.dropped,
        held: counters.held,
        project: scope.projectId,
        rowsWritten: counters.rowsWritten,
        flushErrors: counters.flushErrors,
        backlogPoints: backlog.counters.points,
        backlogSamples: backlog.counters.samples,
        backlogMaxPoints: backlog.maxPoints,
        droppedPoints: backlog.counters.droppedPoints,
        droppedSamples: backlog.counters.droppedSamples,
      };
    },
  };
}
