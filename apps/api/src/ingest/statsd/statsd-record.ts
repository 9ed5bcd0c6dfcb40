// What StatsD flushes and OTLP requests both become: one aggregate of one series over one
// interval (or at one instant), not yet tied to a run.
import type { SeriesKind, SeriesSource } from '@meshbench/schema';
import type { AggregateValues } from '../domain/series-math.ts';
import type { AggregateRow } from './statsd/statsd-aggregate.ts';
import { parseTags } from './statsd/statsd-lines.ts';

/** An exemplar kept with a point (Prometheus remote write): its own time, value and labels. */
export interface StoredExemplar {
  tMs: number;
  /** A number, or "NaN", "+Inf", "-Inf" (JSON has no such numbers). */
  value: number | 'NaN' | '+Inf' | '-Inf';
  labels: Record<string, string>;
}

export interface MetricRecord extends AggregateValues {
  source: SeriesSource;
  name: string;
  kind: SeriesKind;
  unit: string | null;
  /** The series' tags, without the run reference. */
  tags: Record<string, string>;
  /** `run:<id or slug>` tag / `meshbench.run` attribute. */
  runRef: string | null;
  /** `env` tag / `deployment.environment(.name)` attribute: with the time, picks a run. */
  env: string | null;
  tMs: number;
  intervalMs: number;
  /** OTLP cumulative points: when their accumulation started. */
  startAtMs: number | null;
  quantiles: { q: number; value: number }[] | null;
  /** A gauge's value as exact decimal text, when it is an integer beyond float8's 2^53. */
  lastExact: string | null;
  /** Exemplars sent with the point (Prometheus remote write). */
  exemplars?: StoredExemplar[] | null;
}

/** A StatsD aggregate as a record: DogStatsD tags parsed, `run` taken out, `env` read. */
export function statsdRecord(row: AggregateRow): MetricRecord {
  const tags = parseTags(row.tags);
  const runRef = tags.run ?? null;
  delete tags.run;
  if (row.containerId) tags.container_id = row.containerId;
  return {
    source: 'statsd',
    name: row.name,
    kind: row.kind,
    unit: row.kind === 'timer' ? 'ms' : null,
    tags,
    runRef: runRef || null,
    env: tags.env || null,
    tMs: row.tMs,
    intervalMs: row.intervalMs,
    startAtMs: null,
    count: row.count,
    sum: row.sum,
    min: row.min,
    max: row.max,
    last: row.last,
    lastAtMs: row.lastAtMs,
    sketch: row.sketch,
    members: row.members,
    quantiles: null,
    lastExact: row.lastExact,
  };
}
