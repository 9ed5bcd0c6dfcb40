// Hostile HdrHistograms: a real V2 encoding by hdr-histogram-js whose counts are replaced by
// words a hostile sender chose (a run of zeros past the histogram's own length, a payload
// that inflates past its header), re-wrapped as V2 compressed bytes.
import { deflateSync, inflateSync } from 'node:zlib';
import { build, encodeIntoCompressedBase64 } from 'hdr-histogram-js';

const V2_COMPRESSED_COOKIE = 0x1c849304 | 0x10;

/** One ZigZag LEB128-64b9B word (HdrHistogramJS ZigZagEncoding.encode): n < 0 is a run of -n zeros. */
export function zigzagWord(n: number): number[] {
  let v = n < 0 ? -2 * n - 1 : 2 * n;
  const out: number[] = [];
  for (let i = 0; i < 8 && v >= 0x80; i++) {
    out.push((v % 128) | 0x80);
    v = Math.floor(v / 128);
  }
  out.push(v);
  return out;
}

/** The plain V2 header hdr-histogram-js writes for a small real histogram (ms to 1 hour, 3 digits). */
export function realHeader(): Buffer {
  const h = build({
    bitBucketSize: 64,
    numberOfSignificantValueDigits: 3,
    highestTrackableValue: 3_600_000,
    autoResize: false,
  });
  h.recordValue(1234);
  const compressed = Buffer.from(encodeIntoCompressedBase64(h), 'base64');
  return Buffer.from(inflateSync(compressed.subarray(8))).subarray(0, 40);
}

/** V2 compressed bytes of `header` (its payload length set to `payloadLength`) and `payload`. */
export function wrap(header: Buffer, payload: Buffer, payloadLength = payload.length): Buffer {
  const plainHeader = Buffer.from(header);
  plainHeader.writeInt32BE(payloadLength, 4);
  const deflated = deflateSync(Buffer.concat([plainHeader, payload]), { level: 9 });
  const out = Buffer.alloc(8 + deflated.length);
  out.writeInt32BE(V2_COMPRESSED_COOKIE, 0);
  out.writeInt32BE(deflated.length, 4);
  deflated.copy(out, 8);
  return out;
}

/** A real header whose counts are one run of `zeros` zeros and then a count of 1. */
export function zeroRunHistogram(zeros: number): Buffer {
  return wrap(realHeader(), Buffer.from([...zigzagWord(-zeros), ...zigzagWord(1)]));
}

/** A real header claiming `bytes` of payload, all count-0 words (each one byte): a deflate bomb. */
export function zeroCountsBomb(bytes: number, claimed = bytes): Buffer {
  return wrap(realHeader(), Buffer.alloc(bytes), claimed);
}
