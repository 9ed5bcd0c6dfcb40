// encodePlain against what HdrHistogram writes: the payload is byte for byte the one
// hdr-histogram-js's own V2 encoder writes for the same histogram (JsHistogram.encoding.ts
// encodeIntoByteBuffer: counts to the last non-zero, a single zero as a count of 0, a run of
// zeros as its negated length, ZigZag LEB128-64b9B words), and the header's highest value is the
// last counted bucket's (at least 2 x lowest, HdrHistogram's own minimum). Also decodeHdr's
// payload limits at their edges, and hdrStats with the zero bucket counted.
import { inflateSync } from 'node:zlib';
import { build, encodeIntoCompressedBase64, type Histogram } from 'hdr-histogram-js';
import { describe, expect, it } from 'vitest';
import {
  bucketBounds,
  countsArrayLength,
  decodeHdr,
  encodePlain,
  type HdrCounts,
  hdrStats,
} from './hdr.ts';
import { realHeader } from './hdr-hostile.test-fixtures.ts';

const compressed = (h: Histogram) =>
  new Uint8Array(Buffer.from(encodeIntoCompressedBase64(h), 'base64'));
/** hdr-histogram-js's plain V2 encoding of `h` (its compressed one, inflated). */
const referencePlain = (h: Histogram) => inflateSync(compressed(h).subarray(8));

const header = (bytes: Uint8Array) => {
  const v = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return { payload: v.getInt32(4), lowest: v.getBigInt64(16), highest: v.getBigInt64(24) };
};

describe('encodePlain writes the counts as HdrHistogram does', () => {
  it.each([
    [
      'single zeros, runs of zeros, a count of 64 (zigzag 128: two bytes)',
      1,
      [
        [1, 64],
        [3, 1],
        [5, 63],
        [7000, 2],
      ],
    ],
    [
      'counts of 5 to 8 bytes',
      1,
      [
        [10, 2 ** 20],
        [11, 2 ** 35],
        [12, 2 ** 48],
        [900_000, 3],
      ],
    ],
    [
      'a lowest of 1,024 and the zero bucket',
      1024,
      [
        [0, 5],
        [5000, 1],
        [10 ** 9, 7],
      ],
    ],
  ] as const)('%s', (_name, lowest, values) => {
    const h = build({
      bitBucketSize: 64,
      numberOfSignificantValueDigits: 3,
      lowestDiscernibleValue: lowest,
      highestTrackableValue: 2 ** 40,
    });
    for (const [v, c] of values) h.recordValueWithCount(v, c);
    const ours = encodePlain(decodeHdr(compressed(h)));
    const theirs = referencePlain(h);
    expect(Buffer.from(ours.subarray(40))).toEqual(Buffer.from(theirs.subarray(40)));
    expect(header(ours).payload).toBe(header(theirs).payload);
    expect(header(ours).lowest).toBe(BigInt(lowest));
  });

  it('leaves trailing zero buckets out; the header ends at the last counted bucket', () => {
    const counts = new Float64Array(3000);
    counts[2500] = 5;
    const bytes = encodePlain({ digits: 3, lowest: 1, counts, total: 5 });
    // 1,024 sub-buckets per half: index 2500 is bucket 1, sub-bucket 1476, values 2952..2953.
    expect(header(bytes).highest).toBe(2953n);
    // A run of 2,500 zeros (zigzag 4999: two bytes) and the count 5 (zigzag 10: one byte).
    expect(header(bytes).payload).toBe(3);
    expect(bytes.length).toBe(43);
    const back = decodeHdr(bytes);
    expect(back.counts.length).toBe(2501);
    expect(back.total).toBe(5);
  });

  it('gives a header of at least 2 x lowest, as HdrHistogram requires, when only low buckets are counted', () => {
    // lowest 1,024: bucket 0 holds 0..1023, below 2 x lowest.
    const one = encodePlain({ digits: 3, lowest: 1024, counts: Float64Array.of(4), total: 4 });
    expect(header(one).highest).toBe(2048n);
    expect(decodeHdr(one)).toMatchObject({ lowest: 1024, total: 4 });
    const empty = encodePlain({ digits: 2, lowest: 8, counts: new Float64Array(10), total: 0 });
    expect(header(empty)).toEqual({ payload: 0, lowest: 8n, highest: 16n });
    expect(empty.length).toBe(40);
    expect(decodeHdr(empty)).toMatchObject({ digits: 2, lowest: 8, total: 0 });
    expect(decodeHdr(empty).counts.length).toBe(0);
  });

  it('a count needing 9 bytes and one at index 0 round-trip', () => {
    // 2^62: zigzag 2^63, eight 0x80 bytes and a ninth byte of 0x80 (eight value bits, no
    // continuation): nothing after it but the next word.
    const counts = Float64Array.of(2 ** 62, 3);
    const bytes = encodePlain({ digits: 1, lowest: 1, counts, total: 2 ** 62 + 3 });
    expect(Array.from(bytes.subarray(40))).toEqual([...Array(9).fill(0x80), 6]);
    expect(Array.from(decodeHdr(bytes).counts)).toEqual([2 ** 62, 3]);
  });
});

describe('decodeHdr payload limits at their edges', () => {
  it('reads an empty histogram, ours (payload 0) and as hdr-histogram-js writes it', () => {
    const ours = encodePlain({ digits: 3, lowest: 1, counts: new Float64Array(0), total: 0 });
    expect(header(ours).payload).toBe(0);
    expect(decodeHdr(ours).total).toBe(0);
    const h = build({ bitBucketSize: 64, numberOfSignificantValueDigits: 3 });
    expect(decodeHdr(compressed(h)).total).toBe(0);
  });

  it('reads a payload of exactly its counts x 9 bytes (every word at its longest)', () => {
    // realHeader allows 13,312 counts; each written as 1 in nine bytes (0x82, then zeros
    // continued, the ninth byte 0): non-minimal, but ZigZagEncoding reads it.
    const limit = countsArrayLength(3, 1, 3_600_000);
    const word = [0x82, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00];
    const payload = Buffer.from(Array.from({ length: limit }, () => word).flat());
    expect(payload.length).toBe(limit * 9);
    const h = Buffer.from(realHeader());
    h.writeInt32BE(payload.length, 4);
    const counts = decodeHdr(new Uint8Array(Buffer.concat([h, payload])));
    expect(counts.total).toBe(limit);
    expect(counts.counts.length).toBe(limit);
  });
});

describe('hdrStats', () => {
  it('counts the zero bucket: min 0, max the last bucket, mean over bucket middles', () => {
    // digits 3, lowest 1: indexes 0 and 2 are the values 0 and 2, one value a bucket.
    const h: HdrCounts = { digits: 3, lowest: 1, counts: Float64Array.of(2, 0, 3), total: 5 };
    expect(bucketBounds(h, 2)).toEqual({ low: 2, high: 2 });
    expect(hdrStats(h)).toEqual({
      min: 0,
      max: 2,
      mean: 1.2,
      // (2 x 1.2^2 + 3 x 0.8^2) / 5 = 0.96
      stdDev: Math.sqrt(0.96),
    });
  });
});
