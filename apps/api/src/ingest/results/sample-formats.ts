// The raw-sample formats: each one's aggregator, so that a file of them is read whole or as
// it arrives (a stream over the size a whole file may have) by the same code.
import type { ResultFormat } from '@meshbench/schema';
import { GatlingLogAggregator } from './gatling.decoder.ts';
import { HeyCsvAggregator } from './hey-csv.decoder.ts';
import { JmeterCsvAggregator } from './jmeter-csv.decoder.ts';
import { feedLineChunks, type LineChunkLimits } from './line-chunks.ts';
import type { SampleAggregator, SampleDecoded } from './raw-samples.ts';
import { VegetaJsonAggregator } from './vegeta.decoder.ts';

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
