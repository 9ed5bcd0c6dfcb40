// HdrHistograms as counts by bucket index: decoded from the V2 compressed encoding (what
// HdrHistogram's interval logs carry), added bucket by bucket, and read at the nearest rank.
// Follows HdrHistogram/HdrHistogramJS src/JsHistogram.ts (index <-> value), src/encoding.ts and
// src/JsHistogram.encoding.ts (V2 cookies, ZigZag LEB128 counts, negative = run of zeros),
// v3.0.1; its own decoder is ~1 ms a histogram, this one reads the counts only (a stages view
// decodes thousands). Encoding goes through hdr-histogram-js itself.
import { constants, inflateSync } from 'node:zlib';
import type { PercentileAccuracy } from '@meshbench/schema';
import { build, encodeIntoCompressedBase64 } from 'hdr-histogram-js';
import { nearestRank } from './nearest-rank.ts';

const V2_ENCODING_COOKIE_BASE = 0x1c849303;
const V2_COMPRESSED_COOKIE_BASE = 0x1c849304;

export interface HdrCounts {
  digits: number;
  /** lowestDiscernibleValue as encoded (HdrHistogram rounds it down to a power of two). */
  lowest: number;
  /** Count at each bucket index, as many as the encoding filled. */
  counts: Float64Array;
  total: number;
}

export class HdrDecodeError extends Error {}

interface Layout {
  unitMagnitude: number;
  subBucketHalfCountMagnitude: number;
  subBucketHalfCount: number;
}

let lastLayout: { digits: number; lowest: number; layout: Layout } | null = null;

/** layoutOf, remembering the last one (a histogram's buckets are read one after another). */
function layoutOf(digits: number, lowest: number): Layout {
  if (lastLayout?.digits === digits && lastLayout.lowest === lowest) return lastLayout.layout;
  const layout = computeLayout(digits, lowest);
  lastLayout = { digits, lowest, layout };
  return layout;
}

function computeLayout(digits: number, lowest: number): Layout {
  // JsHistogram.init: unit resolution up to 2 x 10^digits, a power-of-two sub-bucket count.
  const largestValueWithSingleUnitResolution = 2 * 10 ** digits;
  const unitMagnitude = Math.floor(Math.log2(lowest));
  const subBucketCountMagnitude = Math.ceil(Math.log2(largestValueWithSingleUnitResolution));
  const subBucketHalfCountMagnitude = Math.max(subBucketCountMagnitude, 1) - 1;
  return {
    unitMagnitude,
    subBucketHalfCountMagnitude,
    subBucketHalfCount: 2 ** subBucketHalfCountMagnitude,
  };
}

/** The lowest value counted at `index` (JsHistogram.valueFromIndex). */
export function valueFromIndex(h: Pick<HdrCounts, 'digits' | 'lowest'>, index: number): number {
  const { unitMagnitude, subBucketHalfCount } = layoutOf(h.digits, h.lowest);
  let bucketIndex = Math.floor(index / subBucketHalfCount) - 1;
  let subBucketIndex = (index % subBucketHalfCount) + subBucketHalfCount;
  if (bucketIndex < 0) {
    subBucketIndex -= subBucketHalfCount;
    bucketIndex = 0;
  }
  return subBucketIndex * 2 ** (bucketIndex + unitMagnitude);
}

/** [lowest, highest] value counted at `index`: the values HdrHistogram cannot tell apart. */
export function bucketBounds(h: Pick<HdrCounts, 'digits' | 'lowest'>, index: number) {
  const { unitMagnitude, subBucketHalfCount } = layoutOf(h.digits, h.lowest);
  const bucketIndex = Math.max(Math.floor(index / subBucketHalfCount) - 1, 0);
  const low = valueFromIndex(h, index);
  return { low, high: low + 2 ** (bucketIndex + unitMagnitude) - 1 };
}

/**
 * The counts array length HdrHistogram gives a histogram of this header, and its checks of the
 * header: HdrHistogram/HdrHistogramJS JsHistogram.ts at 2be4f1f3 (constructor checks, init,
 * establishSize, getBucketsNeededToCoverValue, getLengthForNumberOfBuckets) and the check Java's
 * init adds (HdrHistogram/HdrHistogram AbstractHistogram.java at de84b0a7, whose
 * fillCountsArrayFromSourceBuffer cannot write past this length either). A decoder sizes
 * nothing from the encoded counts: what they claim past this length is refused.
 */
export function countsArrayLength(digits: number, lowest: number, highest: number): number {
  if (!Number.isInteger(digits) || digits < 0 || digits > 5) {
    throw new HdrDecodeError(`numberOfSignificantValueDigits ${digits} is not between 0 and 5`);
  }
  if (!(lowest >= 1) || lowest > 2 ** 62) {
    throw new HdrDecodeError(`lowestDiscernibleValue ${lowest} is not between 1 and 2^62`);
  }
  if (!(highest >= 2 * lowest)) {
    throw new HdrDecodeError(
      `highestTrackableValue ${highest} is less than 2 x lowestDiscernibleValue (${lowest})`,
    );
  }
  const unitMagnitude = Math.floor(Math.log2(lowest));
  const subBucketCountMagnitude = Math.ceil(Math.log2(2 * 10 ** digits));
  if (subBucketCountMagnitude + unitMagnitude > 62) {
    throw new HdrDecodeError(
      `${digits} significant digits cannot be represented beyond lowestDiscernibleValue ${lowest}`,
    );
  }
  const subBucketCount = 2 ** Math.max(subBucketCountMagnitude, 1);
  // getBucketsNeededToCoverValue as HdrHistogramJS has it in doubles: the bucket past
  // Number.MAX_SAFE_INTEGER / 2 is the last (Java's, in longs, goes on to Long.MAX_VALUE / 2).
  let smallestUntrackable = subBucketCount * 2 ** unitMagnitude;
  let buckets = 1;
  while (smallestUntrackable <= highest) {
    if (smallestUntrackable > Number.MAX_SAFE_INTEGER / 2) {
      buckets++;
      break;
    }
    smallestUntrackable *= 2;
    buckets++;
  }
  return (buckets + 1) * (subBucketCount / 2);
}

/** The most bytes V2's ZigZag LEB128-64b9B words take for `length` counts (9 a word). */
const MAX_WORD_BYTES = 9;
/** Enough of a deflate stream to hold its block header and the 40-byte V2 header. */
const HEADER_INPUT_BYTES = 1024;
const V2_HEADER_BYTES = 40;

/** V2 bytes (compressed, or the plain encoding) to counts; throws HdrDecodeError on anything else. */
export function decodeHdr(bytes: Uint8Array): HdrCounts {
  if (bytes.length < 8) throw new HdrDecodeError('shorter than an HdrHistogram header');
  const outer = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const cookie = outer.getInt32(0) & ~0xf0;
  if (cookie === V2_ENCODING_COOKIE_BASE) return decodePlain(bytes);
  if (cookie !== V2_COMPRESSED_COOKIE_BASE) {
    throw new HdrDecodeError('not an HdrHistogram V2 compressed encoding (cookie)');
  }
  const length = outer.getInt32(4);
  if (length < 0 || 8 + length > bytes.length) throw new HdrDecodeError('truncated histogram');
  const deflated = bytes.subarray(8, 8 + length);
  // As AbstractHistogram.decodeFromCompressedByteBuffer: the header first, then no more output
  // than the header's payload length, itself bounded by the counts its header allows. The
  // header comes from at most 1 KiB of input (so at most ~1 MiB of output, deflate's ratio).
  let head: Buffer;
  try {
    head = inflateSync(deflated.subarray(0, HEADER_INPUT_BYTES), {
      finishFlush: constants.Z_SYNC_FLUSH,
    });
  } catch {
    throw new HdrDecodeError('the compressed histogram does not inflate');
  }
  const payload = checkHeader(head);
  if (deflated.length <= HEADER_INPUT_BYTES) {
    // The whole stream was inflated already (at most ~1 MiB from 1 KiB).
    if (head.length > V2_HEADER_BYTES + payload) {
      throw new HdrDecodeError(
        `the compressed histogram inflates past the ${V2_HEADER_BYTES + payload} bytes its header gives`,
      );
    }
    return decodePlain(head);
  }
  let raw: Buffer;
  try {
    raw = inflateSync(deflated, { maxOutputLength: V2_HEADER_BYTES + payload });
  } catch (error) {
    if ((error as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') {
      throw new HdrDecodeError(
        `the compressed histogram inflates past the ${V2_HEADER_BYTES + payload} bytes its header gives`,
      );
    }
    throw new HdrDecodeError('the compressed histogram does not inflate');
  }
  return decodePlain(raw);
}

/**
 * A plain V2 header's checks; its payload length, at most what the counts its header allows
 * can take. Throws HdrDecodeError naming the header field at fault.
 */
function checkHeader(raw: Uint8Array): number {
  if (raw.length < V2_HEADER_BYTES) throw new HdrDecodeError('shorter than an HdrHistogram header');
  const view = new DataView(raw.buffer, raw.byteOffset, raw.byteLength);
  if ((view.getInt32(0) & ~0xf0) !== V2_ENCODING_COOKIE_BASE) {
    throw new HdrDecodeError('not an HdrHistogram V2 encoding (cookie)');
  }
  const payload = view.getInt32(4);
  const limit = countsArrayLength(view.getInt32(12), headerLowest(view), headerHighest(view));
  if (payload < 0 || payload > limit * MAX_WORD_BYTES) {
    throw new HdrDecodeError(
      `payload length ${payload} is more than the ${limit * MAX_WORD_BYTES} bytes its ${limit} counts can take`,
    );
  }
  return payload;
}

const headerLowest = (view: DataView) => Number(view.getBigInt64(16));
const headerHighest = (view: DataView) => Number(view.getBigInt64(24));

/** The plain V2 encoding (header and ZigZag LEB128 counts) to counts. */
function decodePlain(raw: Uint8Array): HdrCounts {
  const payload = checkHeader(raw);
  const view = new DataView(raw.buffer, raw.byteOffset, raw.byteLength);
  const digits = view.getInt32(12);
  const lowest = headerLowest(view);
  const highest = headerHighest(view);
  const limit = countsArrayLength(digits, lowest, highest);
  if (V2_HEADER_BYTES + payload > raw.length) throw new HdrDecodeError('truncated histogram');
  const end = V2_HEADER_BYTES + payload;
  // Two passes: the length first, so the counts go straight into one array. A run of zeros or
  // a count past the histogram's own length is refused before anything is allocated.
  let length = 0;
  for (let pos = V2_HEADER_BYTES; pos < end; ) {
    const value = readWord(raw, pos, end);
    pos = wordEnd;
    length += value < 0 ? -value : 1;
    if (length > limit) {
      throw new HdrDecodeError(
        `its counts run past the ${limit} that highestTrackableValue ${highest} and ${digits} significant digits allow (at ${length})`,
      );
    }
  }
  const counts = new Float64Array(length);
  let total = 0;
  let at = 0;
  for (let pos = V2_HEADER_BYTES; pos < end; ) {
    const value = readWord(raw, pos, end);
    pos = wordEnd;
    if (value < 0) at -= value;
    else {
      counts[at++] = value;
      total += value;
    }
  }
  return { digits, lowest, counts, total };
}

/** Where the last word readWord read ends (a module variable: no object per word). */
let wordEnd = 0;
/** One ZigZag LEB128-64b9B word, as ZigZagEncoding.decode reads it (negative = run of zeros). */
function readWord(raw: Uint8Array, at: number, end: number): number {
  let pos = at;
  if (pos >= end) throw new HdrDecodeError('truncated histogram counts');
  let b = raw[pos++] as number;
  // Small words (most counts) in integer arithmetic; longer ones as ZigZagEncoding does.
  if ((b & 0x80) === 0) {
    wordEnd = pos;
    return b & 1 ? -((b + 1) / 2) : b / 2;
  }
  let value = b & 0x7f;
  let scale = 128;
  for (let i = 1; i < 9; i++) {
    if (pos >= end) throw new HdrDecodeError('truncated histogram counts');
    b = raw[pos++] as number;
    value += (i < 8 ? b & 0x7f : b) * scale;
    if (i < 8 && (b & 0x80) === 0) break;
    scale *= 128;
  }
  wordEnd = pos;
  return value % 2 === 0 ? value / 2 : -(value + 1) / 2;
}

/**
 * Counts to the plain V2 encoding (JsHistogram.encoding.ts encodeIntoByteBuffer's layout, no
 * deflate): what kept slots store, read back without inflating. highestTrackableValue is the
 * last bucket's highest value, so HdrHistogram's own decoders size the histogram to fit.
 */
export function encodePlain(h: HdrCounts): Uint8Array {
  let last = h.counts.length - 1;
  while (last >= 0 && h.counts[last] === 0) last--;
  const out = new Uint8Array(40 + (last + 1) * 9);
  const view = new DataView(out.buffer);
  view.setInt32(0, V2_ENCODING_COOKIE_BASE | 0x10);
  view.setInt32(8, 0);
  view.setInt32(12, h.digits);
  view.setBigInt64(16, BigInt(h.lowest));
  const highest = last < 0 ? 2 * h.lowest : Math.max(bucketBounds(h, last).high, 2 * h.lowest);
  view.setBigInt64(24, BigInt(highest));
  view.setFloat64(32, 1);
  let pos = 40;
  let i = 0;
  while (i <= last) {
    const count = h.counts[i++] as number;
    let zigzag: number;
    if (count === 0) {
      let zeros = 1;
      while (i <= last && h.counts[i] === 0) {
        zeros++;
        i++;
      }
      zigzag = zeros > 1 ? 2 * zeros - 1 : 0;
    } else zigzag = 2 * count;
    for (let b = 0; b < 8 && zigzag >= 0x80; b++) {
      out[pos++] = (zigzag % 128) | 0x80;
      zigzag = Math.floor(zigzag / 128);
    }
    out[pos++] = zigzag;
  }
  view.setInt32(4, pos - 40);
  // A copy of its length: a view would keep the worst case's buffer (9 bytes a bucket, 73 KB
  // for 8,192 buckets) alive for as long as the encoding, 1.4 GB for a 20,000-slot log.
  return out.slice(0, pos);
}

/** An empty histogram of the same structure. */
export function emptyLike(h: Pick<HdrCounts, 'digits' | 'lowest'>): HdrCounts {
  return { digits: h.digits, lowest: h.lowest, counts: new Float64Array(0), total: 0 };
}

/** Adds `from` into `into` (same structure: digits and lowest; otherwise by value). */
export function addInto(into: HdrCounts, from: HdrCounts): HdrCounts {
  if (from.digits === into.digits && from.lowest === into.lowest) {
    let counts = into.counts;
    if (from.counts.length > counts.length) {
      counts = new Float64Array(from.counts.length);
      counts.set(into.counts);
    }
    for (let i = 0; i < from.counts.length; i++)
      counts[i] = (counts[i] as number) + (from.counts[i] as number);
    into.counts = counts;
    into.total += from.total;
    return into;
  }
  // Different structures: each bucket recorded by its lowest value, as JsHistogram.add does.
  const h = toHistogram(into);
  for (let i = 0; i < from.counts.length; i++) {
    const c = from.counts[i] as number;
    if (c > 0) h.recordValueWithCount(valueFromIndex(from, i), c);
  }
  const merged = decodeHdr(encodeHdr(h));
  Object.assign(into, merged);
  return into;
}

/** Scales values by `factor` (a unit change, e.g. 1000 for ms -> us), re-recorded bucket by bucket. */
export function scaled(h: HdrCounts, factor: number): HdrCounts {
  if (factor === 1) return h;
  const out = build({ bitBucketSize: 64, numberOfSignificantValueDigits: digitsOf(h) });
  for (let i = 0; i < h.counts.length; i++) {
    const c = h.counts[i] as number;
    if (c > 0) {
      const { low, high } = bucketBounds(h, i);
      out.recordValueWithCount(Math.round(((low + high) / 2) * factor), c);
    }
  }
  return decodeHdr(encodeHdr(out));
}

const digitsOf = (h: HdrCounts) => Math.min(Math.max(h.digits, 1), 5) as 1 | 2 | 3 | 4 | 5;

function toHistogram(h: HdrCounts) {
  const out = build({
    bitBucketSize: 64,
    lowestDiscernibleValue: h.lowest,
    highestTrackableValue: 2 * h.lowest,
    numberOfSignificantValueDigits: digitsOf(h),
  });
  for (let i = 0; i < h.counts.length; i++) {
    const c = h.counts[i] as number;
    if (c > 0) out.recordValueWithCount(valueFromIndex(h, i), c);
  }
  return out;
}

function encodeHdr(h: ReturnType<typeof build>): Uint8Array {
  return new Uint8Array(Buffer.from(encodeIntoCompressedBase64(h), 'base64'));
}

/** Counts to V2 compressed bytes, through hdr-histogram-js's own encoder. */
export function encodeCounts(h: HdrCounts): Uint8Array {
  return encodeHdr(toHistogram(h));
}

export interface HdrStats {
  min: number | null;
  max: number | null;
  mean: number | null;
  stdDev: number | null;
}

/** min/max as bucket bounds (lowest of the first, highest of the last), mean/stdDev by bucket middles. */
export function hdrStats(h: HdrCounts): HdrStats {
  if (h.total === 0) return { min: null, max: null, mean: null, stdDev: null };
  let first = -1;
  let last = -1;
  let sum = 0;
  let sumSq = 0;
  for (let i = 0; i < h.counts.length; i++) {
    const c = h.counts[i] as number;
    if (c === 0) continue;
    if (first < 0) first = i;
    last = i;
    const { low, high } = bucketBounds(h, i);
    const mid = (low + high) / 2;
    sum += mid * c;
    sumSq += mid * mid * c;
  }
  const mean = sum / h.total;
  return {
    min: bucketBounds(h, first).low,
    max: bucketBounds(h, last).high,
    mean,
    stdDev: Math.sqrt(Math.max(sumSq / h.total - mean * mean, 0)),
  };
}

export interface HdrPercentile {
  p: number;
  /** The bucket's highest value, as HdrHistogram's getValueAtPercentile gives it. */
  value: number;
  low: number;
  high: number;
}

/** At the nearest rank (the one definition, propagation-stats.ts) for each p, in the order asked. */
export function hdrPercentiles(h: HdrCounts, ps: number[]): HdrPercentile[] {
  if (h.total === 0) return [];
  const wanted = ps
    .map((p, at) => ({ p, at, rank: nearestRank(p, h.total) }))
    .sort((a, b) => a.rank - b.rank);
  const out: HdrPercentile[] = new Array(ps.length);
  let cumulative = 0;
  let w = 0;
  for (let i = 0; i < h.counts.length && w < wanted.length; i++) {
    cumulative += h.counts[i] as number;
    while (w < wanted.length && cumulative >= (wanted[w] as { rank: number }).rank) {
      const { low, high } = bucketBounds(h, i);
      const { p, at } = wanted[w] as { p: number; at: number };
      out[at] = { p, value: high, low, high };
      w++;
    }
  }
  return out;
}

/** The accuracy convention for a percentile read off an HdrHistogram (values in `perMs` units a ms). */
export function hdrAccuracy(
  h: HdrCounts,
  q: HdrPercentile,
  perMs: number,
  /** How far the recorded values may be from the measured ones (rounded to the unit), ms. */
  roundingMs = 0,
): PercentileAccuracy {
  return {
    exact: false,
    method: 'hdr',
    relativeError: 10 ** -h.digits,
    lower: q.low / perMs - roundingMs,
    upper: q.high / perMs + roundingMs,
  };
}
