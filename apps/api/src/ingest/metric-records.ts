// The record every metric format (OTLP, Prometheus remote write) starts each point from.
import type { MetricRecord } from '../domain/metric-record.ts';

/**
 * A record of series `name` at `tMs` with every value field empty, its fields always made in
 * this one order (one object shape on the hot path): the point's kind fills in its own.
 */
export function emptyRecord(
  source: MetricRecord['source'],
  name: string,
  unit: string | null,
  tags: Record<string, string>,
  runRef: string | null,
  env: string | null,
  tMs: number,
): MetricRecord {
  return {
    source,
    name,
    kind: 'gauge',
    unit,
    tags,
    runRef,
    env,
    tMs,
    intervalMs: 0,
    startAtMs: null,
    count: 1,
    sum: null,
    min: null,
    max: null,
    last: null,
    lastAtMs: null,
    sketch: null,
    members: null,
    quantiles: null,
    lastExact: null,
  };
}
