// What StatsD has aggregated and not yet written: closed intervals as chunks of records, in
// the order they were closed, kept while the database cannot take them (an outage, a
// restart) and written, oldest first and each once, when it can. Memory is bounded by a
// number of points (records, one per series and interval): past it the newest are dropped,
// and what they held is counted per sample, as StatsD received it.
import type { MetricRecord } from '../../domain/metric-record.ts';

export interface BacklogChunk {
  records: MetricRecord[];
  /** Samples (lines' values, set members) each record aggregates. */
  samples: number[];
  /** Failed attempts to write this chunk with an error that may not be the database's absence. */
  failures: number;
}

export interface BacklogCounters {
  /** Points (records) waiting to be written, and the samples they hold. */
  points: number;
  samples: number;
  /** Dropped: past the bound, or refused by the database one by one (never written). */
  droppedPoints: number;
  droppedSamples: number;
}

const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);

export class StatsdBacklog {
  private chunks: BacklogChunk[] = [];
  readonly counters: BacklogCounters = {
    points: 0,
    samples: 0,
    droppedPoints: 0,
    droppedSamples: 0,
  };

  constructor(
    readonly maxPoints: number,
    private readonly chunkPoints = 1000,
  ) {}

  /**
   * Queues records behind those already waiting, in chunks; what does not fit under the
   * bound is dropped and counted. Returns the number of records kept.
   */
  push(records: MetricRecord[], samples: number[]): number {
    const room = Math.max(0, this.maxPoints - this.counters.points);
    const kept = Math.min(room, records.length);
    if (kept < records.length) this.drop(records.length - kept, sum(samples.slice(kept)));
    for (let i = 0; i < kept; i += this.chunkPoints) {
      const end = Math.min(kept, i + this.chunkPoints);
      this.chunks.push({
        records: records.slice(i, end),
        samples: samples.slice(i, end),
        failures: 0,
      });
    }
    this.counters.points += kept;
    this.counters.samples += sum(samples.slice(0, kept));
    return kept;
  }

  get head(): BacklogChunk | undefined {
    return this.chunks[0];
  }

  get length(): number {
    return this.chunks.length;
  }

  /** The head was written. */
  shift(): void {
    const chunk = this.chunks.shift();
    if (!chunk) return;
    this.counters.points -= chunk.records.length;
    this.counters.samples -= sum(chunk.samples);
  }

  /**
   * The database refused the head for what it holds: it is halved, so that the record at
   * fault is found and only it dropped; a head of one record is dropped (and counted).
   * Returns false when the head was dropped.
   */
  isolate(): boolean {
    const chunk = this.chunks[0];
    if (!chunk) return false;
    if (chunk.records.length <= 1) {
      this.shift();
      this.drop(chunk.records.length, sum(chunk.samples));
      return false;
    }
    const half = Math.ceil(chunk.records.length / 2);
    this.chunks.splice(
      0,
      1,
      { records: chunk.records.slice(0, half), samples: chunk.samples.slice(0, half), failures: 0 },
      { records: chunk.records.slice(half), samples: chunk.samples.slice(half), failures: 0 },
    );
    return true;
  }

  private drop(points: number, samples: number): void {
    this.counters.droppedPoints += points;
    this.counters.droppedSamples += samples;
  }
}

const TRANSIENT_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  // Postgres: admin_shutdown, crash_shutdown, cannot_connect_now, too_many_connections,
  // the server's own out-of-resources and read-only (a failover) states.
  '57P01',
  '57P02',
  '57P03',
  '53300',
  '53100',
  '53200',
  '25006',
]);

/**
 * Whether a write failed because the database is away or overwhelmed (retry the same rows
 * later) rather than for what was written. SQLSTATE class 08 is a connection exception.
 */
export function isTransientDbError(error: unknown): boolean {
  for (
    let e = error as { code?: unknown; message?: unknown; cause?: unknown } | undefined, i = 0;
    e && i < 5;
    e = e.cause as typeof e, i++
  ) {
    const code = typeof e.code === 'string' ? e.code : '';
    if (TRANSIENT_CODES.has(code) || code.startsWith('08')) return true;
    const message = typeof e.message === 'string' ? e.message : '';
    if (
      /connection terminated|terminating connection|connection timeout|timeout exceeded when trying to connect|connection error|the database system is (starting up|shutting down|in recovery)|server closed the connection/i.test(
        message,
      )
    ) {
      return true;
    }
    if (Array.isArray((e as { errors?: unknown }).errors)) {
      // AggregateError (a connect tried on several addresses).
      if ((e as { errors: unknown[] }).errors.some((x) => isTransientDbError(x))) return true;
    }
  }
  return false;
}
