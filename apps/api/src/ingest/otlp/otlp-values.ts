// The scalar fields of OTLP points read as the data model means them: int64s (numbers,
// decimal strings or Longs), nanosecond times, attribute values as text, temporality, and
// the limits a point must keep to be stored.
import type { AnyValue, Int64, KeyValue, Temporality } from './otlp-message.ts';

/**
 * What a data point may carry: longer names or values are refused (named in the response's
 * partial_success), as are times Postgres cannot hold or a start after the point's time.
 */
export const OTLP_LIMITS = {
  nameBytes: 1024,
  attributeKeyBytes: 1024,
  attributeValueBytes: 4096,
  /** timestamptz's range, in Unix ms: 4713 BC is out of reach anyway, so from 1970. */
  minTimeMs: 0,
  maxTimeMs: Date.UTC(9999, 11, 31, 23, 59, 59, 999),
} as const;

/** An int64 as exact decimal text, or null when a float8 holds it exactly (|v| <= 2^53). */
export function exactInt(v: Int64): string | null {
  if (v === null || v === undefined) return null;
  const text =
    typeof v === 'object'
      ? String(v)
      : typeof v === 'string'
        ? v.trim()
        : Number.isInteger(v)
          ? String(v)
          : null;
  if (text === null || !/^-?\d+$/.test(text)) return null;
  const big = BigInt(text);
  const limit = 2n ** 53n;
  return big > limit || big < -limit ? big.toString() : null;
}

export const num = (v: Int64 | number | string): number => {
  if (typeof v === 'number') return v;
  if (v === null || v === undefined) return 0;
  if (typeof v === 'string') return Number(v);
  // Not a number and no Long (protojson with an object where an int64 belongs): NaN, so the
  // point is refused by the range checks with its name, not the request with a TypeError.
  return typeof v.toNumber === 'function' ? v.toNumber() : Number.NaN;
};

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
/** Whether an int64 field holds an int64 (protojson sends them as decimal strings). */
export function isInt64(v: Int64): boolean {
  if (typeof v === 'number') return Number.isInteger(v);
  if (typeof v === 'string') {
    if (!/^-?\d{1,20}$/.test(v)) return false;
    const big = BigInt(v);
    return big >= INT64_MIN && big <= INT64_MAX;
  }
  return v !== null && v !== undefined && typeof v.toNumber === 'function';
}
export const optNum = (v: number | string | null | undefined): number | null =>
  v === null || v === undefined ? null : Number(v);
export const nanosToMs = (v: Int64): number => num(v) / 1e6;

export function anyValueText(v: AnyValue | null | undefined): string {
  if (!v) return '';
  if (v.stringValue !== undefined && v.stringValue !== null) return v.stringValue;
  if (v.boolValue !== undefined && v.boolValue !== null) return String(v.boolValue);
  if (v.intValue !== undefined && v.intValue !== null) return String(num(v.intValue));
  if (v.doubleValue !== undefined && v.doubleValue !== null) return String(Number(v.doubleValue));
  if (v.arrayValue) return JSON.stringify((v.arrayValue.values ?? []).map(anyValueText));
  if (v.kvlistValue) {
    return JSON.stringify(
      Object.fromEntries(
        (v.kvlistValue.values ?? []).map((kv) => [kv.key, anyValueText(kv.value)]),
      ),
    );
  }
  return '';
}

export function addAttributes(
  into: Record<string, string>,
  attrs: KeyValue[] | null | undefined,
): void {
  if (!attrs) return;
  for (const kv of attrs) {
    if (kv && typeof kv.key === 'string') into[kv.key] = anyValueText(kv.value);
  }
}

export const CUMULATIVE = 2;
export const DELTA = 1;
export function temporality(t: Temporality): number {
  if (typeof t === 'number') return t;
  if (t === 'AGGREGATION_TEMPORALITY_CUMULATIVE') return CUMULATIVE;
  if (t === 'AGGREGATION_TEMPORALITY_DELTA') return DELTA;
  return 0;
}

export const inRange = (ms: number) =>
  Number.isFinite(ms) && ms >= OTLP_LIMITS.minTimeMs && ms <= OTLP_LIMITS.maxTimeMs;
