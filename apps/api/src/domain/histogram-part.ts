// A classic Prometheus histogram point's parts (buckets, `+Inf` bucket, sum, count) as one
// remote-write request holds them, or as the rows of prometheus_histogram_parts hold them
// merged across requests. One data shape shared by the decoder that gives parts back
// (ingest/prometheus/remote-write-map.ts), the service that merges them and the repository
// that stores them.
import type { StoredExemplar } from './metric-record.ts';

export interface HistogramPart {
  family: string;
  /** sha256 of the run label and the family's tags (without `le`). */
  labelsKey: string;
  tMs: number;
  tags: Record<string, string>;
  runRef: string | null;
  environment: string | null;
  unit: string | null;
  /** 0: unknown. */
  startMs: number;
  /** Finite buckets: `le` as sent -> cumulative count. */
  buckets: Record<string, number>;
  inf: number | null;
  sum: number | null;
  count: number | null;
  /** None: null (a stored row) or empty (a request's). */
  exemplars: StoredExemplar[] | null;
}
