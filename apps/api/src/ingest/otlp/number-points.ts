// Gauge and Sum data points (NumberDataPoint: as_double or as_int) as records: a gauge's
// last value (an int64 past 2^53 kept exactly beside it), a cumulative sum's running total
// as sent, a delta sum over [start_time_unix_nano, time_unix_nano].
// Each returns why the point is refused, or null when `base` is filled and to be stored.
import type { MetricRecord } from '../../domain/metric-record.ts';
import type { Metric, NumberPoint } from './otlp-message.ts';
import { CUMULATIVE, DELTA, exactInt, isInt64, num, temporality } from './otlp-values.ts';

/** The point's value, or why it has none to store. */
function pointValue(np: NumberPoint, name: string): number | string {
  const hasDouble = np.asDouble !== undefined && np.asDouble !== null;
  const hasInt = np.asInt !== undefined && np.asInt !== null;
  if (!hasDouble && !hasInt) return `a data point of "${name}" has no value`;
  if (!hasDouble && !isInt64(np.asInt)) {
    return `a data point of "${name}" has an asInt that is not an int64`;
  }
  const value = hasDouble ? Number(np.asDouble) : num(np.asInt);
  if (!Number.isFinite(value)) return `a data point of "${name}" is not a finite number`;
  return value;
}

export function gaugePoint(np: NumberPoint, base: MetricRecord): string | null {
  const value = pointValue(np, base.name);
  if (typeof value === 'string') return value;
  base.last = value;
  base.min = value;
  base.max = value;
  base.lastAtMs = base.tMs;
  // An int64 beyond 2^53 (a config version hash) is kept exactly beside the float.
  if (np.asDouble === undefined || np.asDouble === null) base.lastExact = exactInt(np.asInt);
  return null;
}

export function sumPoint(
  np: NumberPoint,
  base: MetricRecord,
  sum: NonNullable<Metric['sum']>,
  startMs: number | null,
): string | null {
  const value = pointValue(np, base.name);
  if (typeof value === 'string') return value;
  base.kind = sum.isMonotonic ? 'counter' : 'updowncounter';
  const t = temporality(sum.aggregationTemporality);
  if (t === CUMULATIVE) {
    // The running total is kept as sent; reads turn consecutive points into increases.
    base.last = value;
    base.startAtMs = startMs ?? 0;
    base.lastAtMs = base.tMs;
    return null;
  }
  if (t === DELTA) {
    // A delta covers [start_time, time]: placed at its start, as long as it lasted.
    base.sum = value;
    if (startMs !== null) {
      base.intervalMs = base.tMs - startMs;
      base.tMs = startMs;
    }
    return null;
  }
  return `sum "${base.name}" has no aggregation temporality`;
}
