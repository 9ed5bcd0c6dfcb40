// Vegeta's binary results: what `vegeta attack` writes unless told otherwise, one gob value
// per request. Follows tsenart/vegeta at cf5811269046c672a604b1eb352204d30f16ae4a: lib/results.go
// NewEncoder (one gob.Encoder over the output, Encode(*Result) per result) and Result {Attack,
// Seq, Code uint16, Timestamp time.Time, Latency time.Duration (int64 ns), BytesOut, BytesIn,
// Error, Body, Method, URL, Headers http.Header}; the gob stream is read by gob.ts. Fields are
// matched by name as Go's decoder matches them, so results of Vegeta versions before named
// attacks (no Attack or Seq) are read too. Raw samples: the same aggregation as the JSON lines
// (vegeta.decoder.ts), latencies per whole microsecond, truncated.
import { type GobEncoded, GobError, GobReader, type GobValue, goTimeUs } from './gob.ts';
import type { LineChunkLimits } from './line-chunks.ts';
import type { SampleDecoded } from './raw-samples.ts';
import { ResultFileError } from './result-file-error.ts';
import { VegetaJsonAggregator } from './vegeta.decoder.ts';

/** The opening of the first message: type id -65 defined as a struct named "Result". */
const SIGNATURE = [0xff, 0x81, 0x03, 0x01, 0x01, 0x06, ...Buffer.from('Result')];

/** Bytes that open as Vegeta's gob results (after the first message's byte count). */
export function isVegetaGob(head: Uint8Array): boolean {
  const first = head[0];
  if (first === undefined) return false;
  const skip = first < 0x80 ? 1 : 1 + (256 - first);
  if (head.length < skip + SIGNATURE.length) return false;
  return SIGNATURE.every((b, i) => head[skip + i] === b);
}

/** Bytes of the stream needed to tell it (a message count of up to 9 bytes, the signature). */
export const VEGETA_GOB_HEAD = 9 + SIGNATURE.length;

const isEncoded = (v: GobValue | undefined): v is GobEncoded =>
  typeof v === 'object' && v !== null && 'gobType' in v && 'bytes' in v;

/** Vegeta's gob results, as their bytes arrive; bounded by the aggregation, not the file. */
export async function decodeVegetaGobChunks(
  chunks: AsyncIterable<Uint8Array>,
  limits: LineChunkLimits,
): Promise<SampleDecoded> {
  const agg = new VegetaJsonAggregator();
  const bad = (n: number, field: string, what: string) =>
    new ResultFileError('invalid_value', `result ${n}: ${field} ${what}`, { field });
  const reader = new GobReader(limits.maxLineBytes, (value, typeName) => {
    const n = reader.values;
    if (
      typeName !== 'Result' ||
      typeof value !== 'object' ||
      value === null ||
      !('Code' in value || 'Timestamp' in value || 'Latency' in value)
    ) {
      throw bad(n, 'value', `is a ${typeName || 'value'}, not a vegeta Result`);
    }
    const r = value as { [field: string]: GobValue };
    // Zero values are not sent: a missing Code is 0 (no response), a missing Latency 0 ns.
    const code = r.Code ?? 0;
    const latency = r.Latency ?? 0;
    if (typeof code !== 'number' || code > 65535) throw bad(n, 'Code', 'must be an HTTP status');
    if (typeof latency !== 'number' || latency < 0)
      throw bad(n, 'Latency', 'must be a whole number of nanoseconds >= 0');
    const stamp = r.Timestamp;
    if (!isEncoded(stamp)) throw bad(n, 'Timestamp', 'is missing');
    let startUs: number;
    try {
      startUs = goTimeUs(stamp);
    } catch (error) {
      throw bad(n, 'Timestamp', `is not a time.Time (${(error as Error).message})`);
    }
    agg.add(code, startUs, latency, r.Attack);
  });
  try {
    for await (const chunk of chunks) reader.write(chunk);
  } catch (error) {
    if (error instanceof GobError) {
      throw new ResultFileError(
        'invalid_value',
        `not Vegeta's gob results (vegeta attack's output): ${error.message}`,
      );
    }
    throw error;
  }
  if (reader.pending) {
    throw new ResultFileError(
      'truncated',
      `the file ends inside a gob message (after ${reader.values} results, byte ${reader.offset + 1})`,
    );
  }
  return agg.end();
}
