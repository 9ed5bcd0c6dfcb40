// k6's --out json stream decoded from its bytes as they arrive (line-chunks.ts): what is held
// is K6NdjsonAggregator's state and at most one unfinished line, never the file.
import { K6NdjsonAggregator, type K6NdjsonDecoded } from './k6-ndjson.decoder.ts';
import { feedLineChunks, type LineChunkLimits } from './line-chunks.ts';

/** The stream's steps as decodeResultFile gives them for the same bytes whole. */
export async function decodeK6NdjsonChunks(
  chunks: AsyncIterable<Uint8Array>,
  options: LineChunkLimits,
): Promise<K6NdjsonDecoded> {
  const agg = new K6NdjsonAggregator();
  const fed = await feedLineChunks(chunks, agg, options);
  return agg.end(fed);
}
