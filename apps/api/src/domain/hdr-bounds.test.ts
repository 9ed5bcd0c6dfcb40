// decodeHdr sizes a histogram by its own header, as HdrHistogram does, never by what its
// encoded counts claim: a run of zeros past the histogram's length, or a payload that inflates
// past its header, is refused before anything that size is allocated.
import { build, encodeIntoCompressedBase64 } from 'hdr-histogram-js';
import { describe, expect, it } from 'vitest';
import { countsArrayLength, decodeHdr, HdrDecodeError } from './hdr.ts';
import {
  realHeader,
  wrap,
  zeroCountsBomb,
  zeroRunHistogram,
  zigzagWord,
} from './hdr-hostile.test-fixtures.ts';

describe('countsArrayLength', () => {
  it.each([
    [3, 1, 3_600_000],
    [3, 1, 2],
    [0, 1, 2],
    [5, 1, 2 ** 63],
    [5, 1, Number.MAX_SAFE_INTEGER],
    [2, 1000, 1e12],
    [1, 7, 10_000],
    [4, 2 ** 20, 2 ** 40],
  ])('is hdr-histogram-js countsArrayLength for digits %i, lowest %d, highest %d', (d, l, h) => {
    const reference = build({
      bitBucketSize: 64,
      // (0 digits: JsHistogram takes 0 to 5, its type says 1 to 5.)
      numberOfSignificantValueDigits: d as 1,
      lowestDiscernibleValue: l,
      highestTrackableValue: h,
      autoResize: false,
    });
    const length = (reference as unknown as { countsArrayLength: number }).countsArrayLength;
    expect(countsArrayLength(d, l, h)).toBe(length);
  });

  it.each([
    [6, 1, 100, /significant digits|between 0 and 5/],
    [3, 0, 100, /lowestDiscernibleValue/],
    [3, 100, 150, /highestTrackableValue/],
  ])(
    'refuses a header hdr-histogram-js refuses (digits %i, lowest %d, highest %d)',
    (d, l, h, why) => {
      expect(() =>
        build({
          numberOfSignificantValueDigits: d as 1,
          lowestDiscernibleValue: l,
          highestTrackableValue: h,
        }),
      ).toThrow();
      expect(() => countsArrayLength(d, l, h)).toThrow(why);
    },
  );
});

describe('decodeHdr of hostile histograms', () => {
  it('refuses a run of zeros past the length its highestTrackableValue gives', () => {
    // 2e8 zeros: 1.6 GB of counts if sized by the run. The header allows 13,312.
    const bytes = zeroRunHistogram(200_000_000);
    expect(bytes.length).toBeLessThan(100);
    expect(() => decodeHdr(bytes)).toThrow(HdrDecodeError);
    expect(() => decodeHdr(bytes)).toThrow(/past the 13312 .*highestTrackableValue 3600000/);
  });

  it('reads a run of zeros that ends inside the histogram', () => {
    const counts = decodeHdr(zeroRunHistogram(13_000));
    expect(counts.counts.length).toBe(13_001);
    expect(counts.total).toBe(1);
  });

  it('refuses a payload length past what its counts can take, before inflating it', () => {
    // 13,312 counts take at most 9 bytes each.
    expect(() => decodeHdr(zeroCountsBomb(200_000))).toThrow(/payload length 200000 .*119808/);
  });

  it('stops inflating at the payload length its header gives', () => {
    // 64 MB of count-0 words (64 KB deflated) under a header that says 100 bytes.
    const bomb = zeroCountsBomb(64 * 2 ** 20, 100);
    expect(bomb.length).toBeLessThan(2 ** 17);
    expect(() => decodeHdr(bomb)).toThrow(/inflates past the 140 bytes/);
  });

  it('still reads what hdr-histogram-js writes, to its last count', () => {
    const h = build({ bitBucketSize: 64, numberOfSignificantValueDigits: 3 });
    for (const v of [1, 999, 123_456, 9_999_999_999]) h.recordValue(v);
    const counts = decodeHdr(new Uint8Array(Buffer.from(encodeIntoCompressedBase64(h), 'base64')));
    expect(counts.total).toBe(4);
    // A header with a count right at its last index is whole.
    const last = countsArrayLength(3, 1, 3_600_000) - 1;
    const atEnd = wrap(realHeader(), Buffer.from([...zigzagWord(-last), ...zigzagWord(5)]));
    expect(decodeHdr(atEnd).total).toBe(5);
  });
});
