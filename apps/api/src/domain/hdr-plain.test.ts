// The plain V2 encoding kept slots store: read back by hdr-histogram-js's own decoder (the
// reference) and by decodeHdr, equal to the histogram it was made from.
import { build, encodeIntoCompressedBase64, JsHistogram } from 'hdr-histogram-js';
import { describe, expect, it } from 'vitest';
import { prng } from '../demo/prng.ts';
import { decodeHdr, encodePlain } from './hdr.ts';

describe('encodePlain', () => {
  it('holds no more memory than its own bytes (a slot row keeps it: 20,000 slots of a log)', () => {
    const rnd = prng(26);
    const h = build({ numberOfSignificantValueDigits: 3 });
    for (let i = 0; i < 200; i++) h.recordValue(Math.max(1, Math.round(rnd.logNormal(2000, 0.5))));
    h.recordValue(100_000);
    const plain = encodePlain(
      decodeHdr(new Uint8Array(Buffer.from(encodeIntoCompressedBase64(h), 'base64'))),
    );
    // Sparse counts: a few hundred bytes; a view of the worst case's buffer would be ~70 KB.
    expect(plain.length).toBeLessThan(4096);
    expect(plain.buffer.byteLength).toBe(plain.length);
  });

  it.each([1, 2, 3])('round-trips seeded histograms through hdr-histogram-js (seed %i)', (seed) => {
    const rnd = prng(seed);
    const h = build({ bitBucketSize: 64, numberOfSignificantValueDigits: 3 });
    const values: number[] = [];
    for (let i = 0; i < 20_000; i++) {
      const v = Math.max(1, Math.round(rnd.logNormal(1500 * seed, 0.9)));
      // Large counts too: words longer than 4 bytes.
      const n = i % 1000 === 0 ? 2 ** 40 : 1;
      h.recordValueWithCount(v, n);
      values.push(v);
    }
    const bytes = new Uint8Array(Buffer.from(encodeIntoCompressedBase64(h), 'base64'));
    const counts = decodeHdr(bytes);
    const plain = encodePlain(counts);
    // JsHistogram.decode (JsHistogram.encoding.ts doDecode) reads the plain V2 encoding.
    const reference = (
      JsHistogram as unknown as { decode: (b: Uint8Array, size: 64) => JsHistogram }
    ).decode(plain, 64);
    expect(reference.totalCount).toBe(h.totalCount);
    for (const p of [0.1, 50, 90, 99, 99.9, 100]) {
      expect(reference.getValueAtPercentile(p)).toBe(h.getValueAtPercentile(p));
    }
    const back = decodeHdr(plain);
    expect(back.total).toBe(counts.total);
    expect(back.digits).toBe(3);
    expect(Array.from(back.counts)).toEqual(Array.from(counts.counts));
  });

  it('refuses a truncated plain encoding', () => {
    const h = build({ bitBucketSize: 64, numberOfSignificantValueDigits: 2 });
    h.recordValueWithCount(1000, 2 ** 35);
    const plain = encodePlain(
      decodeHdr(new Uint8Array(Buffer.from(encodeIntoCompressedBase64(h), 'base64'))),
    );
    const cut = new Uint8Array(plain.subarray(0, plain.length - 1));
    expect(() => decodeHdr(cut)).toThrow(/header out of range|truncated/);
  });
});
