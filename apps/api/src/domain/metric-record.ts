// What StatsD flushes, OTLP requests and remote writes all become: one aggregate of one
// series over one interval (or at one instant), not yet tied to a run. A data shape shared
// by the decoders (ingest/) that make it and the metrics repository that stores it.
import type { SeriesKind, SeriesSource } from '@meshbench/schema';
import type { AggregateValues } from './series-math.ts';

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
