// The raw-sample formats: each one's aggregator, so that a file of them is read whole or as
// it arrives (a stream over the size a whole file may have) by the same code.
import type { ResultFormat } from '@meshbench/schema';
import { GatlingLogAggregator } from './gatling.decoder.ts';
import { decodeGatlingBinaryChunks } from './gatling-binary.decoder.ts';
import { GATLING_BINARY_HEAD, isGatlingBinaryLog } from './gatling-binary.ts';
import { HeyCsvAggregator } from './hey-csv.decoder.ts';
import { JmeterCsvAggregator } from './jmeter-csv.decoder.ts';
import { feedLineChunks, type LineChunkLimits } from './line-chunks.ts';
import type { SampleAggregator, SampleDecoded } from './raw-samples.ts';
import { VegetaJsonAggregator } from './vegeta.decoder.ts';
import { decodeVegetaGobChunks, isVegetaGob, VEGETA_GOB_HEAD } from './vegeta-gob.decoder.ts';

export const SAMPLE_AGGREGATORS = {
  hey: () => new HeyCsvAggregator(),
  jmeter: () => new JmeterCsvAggregator(),
  vegeta: () => new VegetaJsonAggregator(),
  gatling: () => new GatlingLogAggregator(),
} satisfies Partial<Record<ResultFormat, () => SampleAggregator>>;

export type SampleFormat = keyof typeof SAMPLE_AGGREGATORS;

export const isSampleFormat = (f: string | null): f is SampleFormat =>
  f !== null && Object.hasOwn(SAMPLE_AGGREGATORS, f);

/** A raw-sample file read as it arrives: decoded as the same bytes whole would be. */
export async function decodeSampleChunks(
  format: SampleFormat,
  chunks: AsyncIterable<Uint8Array>,
  limits: LineChunkLimits,
): Promise<SampleDecoded> {
  if (format === 'vegeta') {
    // Vegeta's results as JSON lines, or as the gob stream `vegeta attack` writes.
    const peeked = await peekChunks(chunks, VEGETA_GOB_HEAD);
    chunks = peeked.chunks;
    if (isVegetaGob(peeked.head)) return decodeVegetaGobChunks(chunks, limits);
  }
  if (format === 'gatling') {
    // Gatling's text simulation.log (up to 3.12), or the binary one of 3.13 on.
    const peeked = await peekChunks(chunks, GATLING_BINARY_HEAD);
    chunks = peeked.chunks;
    if (isGatlingBinaryLog(Buffer.from(peeked.head).toString('latin1')))
      return decodeGatlingBinaryChunks(chunks, limits);
  }
  const agg = SAMPLE_AGGREGATORS[format]();
  let first = true;
  // A byte order mark is no part of the first line.
  const sink = {
    get linesRead() {
      return agg.linesRead;
    },
    write(text: string) {
      agg.write(first && text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
      first = false;
    },
  };
  await feedLineChunks(chunks, sink, limits);
  return agg.end();
}

/** The first `bytes` of a stream (fewer if it ends first), and the whole stream again. */
export async function peekChunks(
  chunks: AsyncIterable<Uint8Array>,
  bytes: number,
): Promise<{ head: Uint8Array; chunks: AsyncIterable<Uint8Array> }> {
  const iterator = chunks[Symbol.asyncIterator]();
  const taken: Uint8Array[] = [];
  let size = 0;
  let done = false;
  while (size < bytes) {
    const next = await iterator.next();
    if (next.done) {
      done = true;
      break;
    }
    taken.push(next.value);
    size += next.value.length;
  }
  const head = Buffer.concat(taken).subarray(0, bytes);
  return {
    head,
    chunks: (async function* () {
      yield* taken;
      if (done) return;
      for (;;) {
        const next = await iterator.next();
        if (next.done) return;
        yield next.value;
      }
    })(),
  };
}
