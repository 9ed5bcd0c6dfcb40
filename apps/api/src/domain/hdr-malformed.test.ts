// decodeHdr and countsArrayLength on malformed input, one fault at a time: each is refused with
// an HdrDecodeError naming what is wrong (never a RangeError from reading past the bytes, never
// counts read from a header HdrHistogram itself would refuse), and the value just inside each
// limit is still read. Limits from HdrHistogram's AbstractHistogram (Java) and HdrHistogramJS's
// JsHistogram, V2 encoding layout from JsHistogram.encoding.ts and ZigZagEncoding.
import { deflateSync } from 'node:zlib';
import { build } from 'hdr-histogram-js';
import { describe, expect, it } from 'vitest';
import { countsArrayLength, decodeHdr, HdrDecodeError } from './hdr.ts';
import { realHeader, wrap, zigzagWord } from './hdr-hostile.test-fixtures.ts';

const COMPRESSED_COOKIE = 0x1c849304 | 0x10;

/** The plain V2 encoding: `header` with its payload length set to `payloadLength`, then `payload`. */
function plain(
  payload: number[],
  payloadLength = payload.length,
  header = realHeader(),
): Uint8Array {
  const h = Buffer.from(header);
  h.writeInt32BE(payloadLength, 4);
  return new Uint8Array(Buffer.concat([h, Buffer.from(payload)]));
}

/** V2 compressed framing (cookie, length) around `deflated`, its length field `length`. */
function framed(
  deflated: Buffer,
  length = deflated.length,
  cookie = COMPRESSED_COOKIE,
): Uint8Array {
  const out = Buffer.alloc(8 + deflated.length);
  out.writeInt32BE(cookie, 0);
  out.writeInt32BE(length, 4);
  deflated.copy(out, 8);
  return new Uint8Array(out);
}

const refused = (bytes: Uint8Array, why: RegExp) => {
  expect(() => decodeHdr(bytes)).toThrow(HdrDecodeError);
  expect(() => decodeHdr(bytes)).toThrow(why);
};

describe('countsArrayLength refuses what HdrHistogram refuses', () => {
  it.each([[-1], [2.5], [Number.NaN], [6]])('digits %d', (d) => {
    expect(() => countsArrayLength(d, 1, 3_600_000)).toThrow(/numberOfSignificantValueDigits/);
  });

  it.each([[0], [0.5], [Number.NaN], [2 ** 63]])('lowest %d', (l) => {
    // A lowest past 2^62 is no long HdrHistogram could hold with a highest twice it.
    expect(() => countsArrayLength(3, l, 2 ** 70)).toThrow(/lowestDiscernibleValue .* between/);
  });

  it('highest: at least twice lowest, whatever lowest is', () => {
    expect(countsArrayLength(0, 1000, 2000)).toBeGreaterThan(0);
    expect(() => countsArrayLength(0, 1000, 1999)).toThrow(/highestTrackableValue 1999/);
    expect(() => countsArrayLength(0, 1000, Number.NaN)).toThrow(/highestTrackableValue/);
  });

  it('digits past lowest: Java init allows unitMagnitude + subBucketHalfCountMagnitude <= 61', () => {
    // 3 digits: 2,048 sub-buckets (magnitude 11, half 10). lowest 2^51: 51 + 10 = 61, allowed,
    // and the length is the reference's; lowest 2^52: 62, refused.
    const reference = build({
      bitBucketSize: 64,
      numberOfSignificantValueDigits: 3,
      lowestDiscernibleValue: 2 ** 51,
      highestTrackableValue: 2 ** 53,
      autoResize: false,
    }) as unknown as { countsArrayLength: number };
    expect(countsArrayLength(3, 2 ** 51, 2 ** 53)).toBe(reference.countsArrayLength);
    expect(() => countsArrayLength(3, 2 ** 52, 2 ** 54)).toThrow(/3 significant digits cannot/);
    // 0 digits: 2 sub-buckets (half: magnitude 0). lowest 2^61 allowed, 2^62 refused.
    expect(countsArrayLength(0, 2 ** 61, 2 ** 62)).toBe(3);
    expect(() => countsArrayLength(0, 2 ** 62, 2 ** 63)).toThrow(/0 significant digits cannot/);
  });
});

describe('decodeHdr refuses malformed framing', () => {
  it('fewer than 8 bytes (cookie and length) is no header', () => {
    refused(new Uint8Array(0), /shorter than an HdrHistogram header/);
    refused(new Uint8Array(7).fill(0x1c), /shorter than an HdrHistogram header/);
  });

  it('a cookie other than V2 plain or compressed (V0/V1 cookies, text)', () => {
    for (const cookie of [0x1c849301, 0x1c849302, 0x1c849305, 0x7b226869]) {
      const bytes = Buffer.alloc(64);
      bytes.writeInt32BE(cookie, 0);
      refused(new Uint8Array(bytes), /not an HdrHistogram V2 compressed encoding \(cookie\)/);
    }
  });

  it('a compressed length that is negative or runs past the bytes', () => {
    const whole = wrap(realHeader(), Buffer.from([...zigzagWord(7)]));
    const deflated = whole.subarray(8);
    expect(decodeHdr(framed(deflated)).total).toBe(7);
    refused(framed(deflated, -1), /truncated histogram/);
    refused(framed(deflated, deflated.length + 1), /truncated histogram/);
    // Cut by one byte: the length still says the whole.
    refused(new Uint8Array(whole.subarray(0, whole.length - 1)), /truncated histogram/);
  });

  it('bytes that are not deflate', () => {
    refused(framed(Buffer.from('not a deflate stream at all')), /does not inflate/);
  });

  it('a long stream (past the header read) whose end is corrupt', () => {
    // Incompressible counts: the stream is well past the 1 KiB the header is read from.
    const words: number[] = [];
    let x = 12345;
    for (let i = 0; i < 3000; i++) {
      x = (x * 1103515245 + 12345) % 2 ** 31;
      words.push(...zigzagWord(1 + (x % 100_000)));
    }
    const whole = Buffer.from(wrap(realHeader(), Buffer.from(words)));
    expect(whole.length).toBeGreaterThan(1024 + 8);
    expect(decodeHdr(new Uint8Array(whole)).counts.length).toBe(3000);
    // The zlib trailer is the Adler-32 of the inflated bytes: a wrong one is a corrupt stream.
    whole[whole.length - 1] = (whole[whole.length - 1] as number) ^ 0xff;
    refused(new Uint8Array(whole), /does not inflate/);
  });

  it('a short stream that inflates past the payload its header gives', () => {
    // 20 count-0 words under a header that says 10 bytes: 50 bytes allowed, 60 inflated.
    refused(wrap(realHeader(), Buffer.alloc(20), 10), /inflates past the 50 bytes/);
    expect(decodeHdr(wrap(realHeader(), Buffer.alloc(10), 10)).counts.length).toBe(10);
  });
});

describe('decodeHdr refuses a malformed V2 header', () => {
  it('an inflated header shorter than 40 bytes', () => {
    refused(
      framed(deflateSync(realHeader().subarray(0, 39))),
      /shorter than an HdrHistogram header/,
    );
    refused(plain([]).subarray(0, 39), /shorter than an HdrHistogram header/);
  });

  it('a compressed encoding whose inner cookie is not the plain V2 one', () => {
    const header = Buffer.from(realHeader());
    header.writeInt32BE(COMPRESSED_COOKIE, 0);
    refused(framed(deflateSync(header)), /not an HdrHistogram V2 encoding \(cookie\)/);
  });

  it('a negative payload length', () => {
    refused(plain([], -1), /payload length -1 /);
    refused(wrap(realHeader(), Buffer.alloc(0), -1), /payload length -1 /);
  });

  it('a header HdrHistogram would refuse (digits, lowest, highest)', () => {
    const at = (write: (b: Buffer) => void) => {
      const h = Buffer.from(realHeader());
      write(h);
      return plain([2], 1, h);
    };
    refused(
      at((h) => h.writeInt32BE(6, 12)),
      /numberOfSignificantValueDigits 6/,
    );
    refused(
      at((h) => h.writeBigInt64BE(0n, 16)),
      /lowestDiscernibleValue 0/,
    );
    refused(
      at((h) => h.writeBigInt64BE(1n, 24)),
      /highestTrackableValue 1 /,
    );
  });

  it('a plain payload length past the bytes there are', () => {
    expect(decodeHdr(plain([...zigzagWord(3), ...zigzagWord(4)])).total).toBe(7);
    refused(plain([...zigzagWord(3), ...zigzagWord(4)], 3), /^truncated histogram$/);
  });
});

describe('decodeHdr reads ZigZag LEB128-64b9B words to their ninth byte', () => {
  it('a word cut inside its continuation bytes is truncated', () => {
    // 300: zigzag 600 = two bytes; its first byte alone ends the payload.
    const word = zigzagWord(300);
    expect(word.length).toBe(2);
    refused(plain([word[0] as number]), /truncated histogram counts/);
    refused(plain([...zigzagWord(5), word[0] as number]), /truncated histogram counts/);
  });

  it('the ninth byte carries 8 bits, not 7 and a continuation', () => {
    // 2^62: zigzag 2^63, eight 0x80 bytes then 0x80 as the ninth (its top bit is a value bit).
    const big = zigzagWord(2 ** 62);
    expect(big).toEqual([0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80]);
    const counts = decodeHdr(plain([...big, ...zigzagWord(3)]));
    expect(Array.from(counts.counts)).toEqual([2 ** 62, 3]);
    expect(counts.total).toBe(2 ** 62 + 3);
    // 2^55: zigzag 2^56, the ninth byte 1.
    const counts55 = decodeHdr(
      plain([...zigzagWord(-2), ...zigzagWord(2 ** 55), ...zigzagWord(1)]),
    );
    expect(Array.from(counts55.counts)).toEqual([0, 0, 2 ** 55, 1]);
  });

  it('a word of nine bytes with nothing after it is whole', () => {
    expect(decodeHdr(plain(zigzagWord(2 ** 62))).total).toBe(2 ** 62);
  });
});
