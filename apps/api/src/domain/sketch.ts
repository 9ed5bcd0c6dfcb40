// Quantile sketches (DDSketch, 1 % relative accuracy): built from samples, stored as DDSketch
// protobuf with their bins trimmed, merged on read. Percentiles at the nearest rank are read
// in distribution.ts (the library's own quantile answers at a lower rank).
// The library is pinned to exactly 2.1.1 in package.json: this module reads its private
// fields (the stores' bins, offset and key range, the mapping's value()), which a minor
// release may rename without notice. sketch.test.ts checks them against the library's own
// answers; bump the pin only with that test passing.
import { DDSketch } from '@datadog/sketches-js';
// The library's own generated protobuf types, to write the bins it keeps without padding.
import compiled from '@datadog/sketches-js/dist/ddsketch/proto/compiled.js';

const proto = compiled as unknown as {
  DDSketch: {
    create(fields: object): unknown;
    encode(message: unknown): { finish(): Uint8Array };
  };
};

export const RELATIVE_ACCURACY = 0.01;

export type Sketch = DDSketch;

export const newSketch = (): Sketch => new DDSketch({ relativeAccuracy: RELATIVE_ACCURACY });

interface StoreLike {
  bins: number[];
  count: number;
  minKey: number;
  maxKey: number;
  offset: number;
}

function trimmed(store: StoreLike) {
  if (store.count === 0 || store.bins.length === 0) {
    return { contiguousBinCounts: [], contiguousBinIndexOffset: 0 };
  }
  return {
    contiguousBinCounts: store.bins.slice(
      store.minKey - store.offset,
      store.maxKey - store.offset + 1,
    ),
    contiguousBinIndexOffset: store.minKey,
  };
}

interface MappingLike {
  gamma: number;
  _offset: number;
  toProto(): unknown;
}

/**
 * The last mapping's protobuf message, by mapping class, gamma and offset. The library's
 * toProto() runs require() on every call, which cost more than the rest of the encoding.
 */
let lastMapping: { kind: unknown; gamma: number; offset: number; message: unknown } | null = null;

function mappingMessage(mapping: MappingLike): unknown {
  const m = lastMapping;
  if (
    m !== null &&
    m.kind === mapping.constructor &&
    m.gamma === mapping.gamma &&
    m.offset === mapping._offset
  ) {
    return m.message;
  }
  const message = mapping.toProto();
  lastMapping = {
    kind: mapping.constructor,
    gamma: mapping.gamma,
    offset: mapping._offset,
    message,
  };
  return message;
}

/** DDSketch protobuf bytes: only the bins between the lowest and highest used key. */
export function encodeSketch(sketch: Sketch): Uint8Array {
  const s = sketch as unknown as {
    mapping: MappingLike;
    store: StoreLike;
    negativeStore: StoreLike;
    zeroCount: number;
  };
  const message = proto.DDSketch.create({
    mapping: mappingMessage(s.mapping) as never,
    positiveValues: trimmed(s.store),
    negativeValues: trimmed(s.negativeStore),
    zeroCount: s.zeroCount,
  });
  return proto.DDSketch.encode(message).finish();
}

export function decodeSketch(bytes: Uint8Array): Sketch {
  return DDSketch.fromProto(bytes) as Sketch;
}

/**
 * Merges b into a. The library's merge folds only the positive values once `a` is
 * non-empty, so the negative store is merged here too.
 */
export function mergeInto(a: Sketch, b: Sketch): void {
  if (b.count === 0) return;
  const wasEmpty = a.count === 0;
  a.merge(b);
  if (!wasEmpty) {
    (a.negativeStore as unknown as { merge(s: unknown): void }).merge(b.negativeStore);
  }
}

/** One sketch from many stored ones (undefined when there are none). */
export function mergeEncoded(list: Iterable<Uint8Array | null | undefined>): Sketch | undefined {
  let out: Sketch | undefined;
  for (const bytes of list) {
    if (!bytes || bytes.length === 0) continue;
    const s = decodeSketch(bytes);
    if (!out) out = s;
    else mergeInto(out, s);
  }
  return out;
}

/**
 * The sketch of the samples added between two cumulative sketches of one stream (later
 * minus earlier, bin by bin, never below zero): the window of a cumulative histogram.
 */
export function subtractSketch(later: Sketch, earlier: Sketch): Sketch {
  const out = newSketch();
  const copy = (from: StoreLike, minus: StoreLike, sign: 1 | -1) => {
    for (let key = from.minKey; key <= from.maxKey; key++) {
      const a = from.bins[key - from.offset] ?? 0;
      const b =
        key >= minus.minKey && key <= minus.maxKey ? (minus.bins[key - minus.offset] ?? 0) : 0;
      const w = a - b;
      if (w > 0)
        out.accept(sign * (out.mapping as unknown as { value(k: number): number }).value(key), w);
    }
  };
  const l = later as unknown as { store: StoreLike; negativeStore: StoreLike; zeroCount: number };
  const e = earlier as unknown as { store: StoreLike; negativeStore: StoreLike; zeroCount: number };
  if (l.store.count > 0) copy(l.store, e.store, 1);
  if (l.negativeStore.count > 0) copy(l.negativeStore, e.negativeStore, -1);
  const zeros = l.zeroCount - e.zeroCount;
  if (zeros > 0) out.accept(0, zeros);
  return out;
}

/**
 * An explicit-bucket histogram (OTLP) as a sketch: each bucket's count at a value inside
 * it (the midpoint, the recorded min/max for the open-ended ones), so it merges with
 * sketches of raw samples. Percentiles from it are estimates within a bucket's width.
 */
export function sketchFromBuckets(
  bounds: readonly number[],
  counts: readonly number[],
  min?: number | null,
  max?: number | null,
): Sketch {
  const s = newSketch();
  for (let i = 0; i < counts.length; i++) {
    const c = counts[i] as number;
    if (!(c > 0)) continue;
    const lo = i === 0 ? (min ?? bounds[0] ?? 0) : (bounds[i - 1] as number);
    const hi =
      i >= bounds.length ? (max ?? bounds[bounds.length - 1] ?? lo) : (bounds[i] as number);
    let v = (lo + hi) / 2;
    if (min != null && v < min) v = min;
    if (max != null && v > max) v = max;
    s.accept(v, c);
  }
  return s;
}

/** An OTLP exponential histogram as a sketch: each bucket's count at its geometric middle. */
export function sketchFromExponential(e: {
  scale: number;
  zeroCount: number;
  positive?: { offset: number; bucketCounts: readonly number[] } | null;
  negative?: { offset: number; bucketCounts: readonly number[] } | null;
}): Sketch {
  const s = newSketch();
  const base = 2 ** (2 ** -e.scale);
  const add = (b: { offset: number; bucketCounts: readonly number[] }, sign: 1 | -1) => {
    b.bucketCounts.forEach((c, k) => {
      if (!(c > 0)) return;
      const index = b.offset + k;
      // Bucket index i holds (base^i, base^(i+1)].
      // Each root apart, the top bucket's upper boundary held at the largest double: the
      // product, or base^(index + 1) itself, is past float64's range at its ends.
      const mid = Math.min(
        Math.sqrt(base ** index) * Math.sqrt(Math.min(base ** (index + 1), Number.MAX_VALUE)),
        Number.MAX_VALUE,
      );
      if (Number.isFinite(mid) && mid > 0) s.accept(sign * mid, c);
    });
  };
  if (e.positive) add(e.positive, 1);
  if (e.negative) add(e.negative, -1);
  if (e.zeroCount > 0) s.accept(0, e.zeroCount);
  return s;
}
