// Gatling's binary simulation.log (3.13 on, gatling-binary.ts) to one load result, as its
// bytes arrive: REQUEST records counted as the text layout's are (gatling-requests.ts), whole
// ms, each percentile within 1 ms either side; USER, GROUP and ERROR records are read past.
import {
  GatlingBinaryError,
  GatlingBinaryReader,
  type GatlingRecord,
  TooLarge,
} from './gatling-binary.ts';
import { GatlingRequests, type GatlingRun } from './gatling-requests.ts';
import type { LineChunkLimits } from './line-chunks.ts';
import type { SampleDecoded } from './raw-samples.ts';
import { ResultFileError } from './result-file-error.ts';

const UNMAPPED = ['groups', 'USER', 'GROUP', 'ERROR', 'assertions'];

/** Every record of a binary simulation.log, in order, to `onRecord`; its bytes' count. */
export async function readGatlingBinary(
  chunks: AsyncIterable<Uint8Array>,
  limits: LineChunkLimits,
  onRecord: (record: GatlingRecord, n: number) => void,
): Promise<number> {
  const reader = new GatlingBinaryReader(limits.maxLineBytes, (record) =>
    onRecord(record, reader.records),
  );
  try {
    for await (const chunk of chunks) reader.write(chunk);
  } catch (error) {
    if (error instanceof GatlingBinaryError) {
      throw new ResultFileError(
        'invalid_value',
        `not Gatling's binary simulation.log (3.13 or later): ${error.message}`,
      );
    }
    if (error instanceof TooLarge) {
      throw new ResultFileError(
        'too_large',
        `record ${reader.records + 1} (byte ${reader.offset + 1}) is longer than ${limits.maxLineBytes} bytes${limits.lineSetting ? `, the limit of a record set by ${limits.lineSetting}` : ''}`,
      );
    }
    throw error;
  }
  if (reader.pending) {
    throw new ResultFileError(
      'truncated',
      `the file ends inside record ${reader.records + 1} (after ${reader.records} whole records, byte ${reader.offset + 1})`,
    );
  }
  if (reader.records === 0) throw new ResultFileError('empty', 'the file is empty');
  return reader.offset;
}

/** A binary simulation.log's REQUEST records as one load result. */
export async function decodeGatlingBinaryChunks(
  chunks: AsyncIterable<Uint8Array>,
  limits: LineChunkLimits,
): Promise<SampleDecoded> {
  const requests = new GatlingRequests();
  let run: GatlingRun = { simulation: '', version: '' };
  await readGatlingBinary(chunks, limits, (r, n) => {
    if (r.kind === 'run') run = { simulation: r.simulation, version: r.version };
    else if (r.kind === 'request') {
      if (r.end < r.start) {
        throw new ResultFileError(
          'invalid_value',
          `record ${n}: REQUEST "${r.name.slice(0, 40)}" ends ${r.end - r.start} ms before it starts`,
          { field: 'end' },
        );
      }
      requests.add(r.name, r.start, r.end, r.ok, r.message);
    }
  });
  return requests.end(run, UNMAPPED);
}
