// k6's --out json stream decoded from its bytes as they arrive: each run of whole lines is
// checked as UTF-8 and fed to K6NdjsonAggregator, so what is held is the aggregator's state
// and at most one unfinished line, never the file.
import { isUtf8 } from 'node:buffer';
import { invalidUtf8At } from '../stored-text.ts';
import { K6NdjsonAggregator, type K6NdjsonDecoded } from './k6-ndjson.decoder.ts';
import { ResultFileError } from './result-file-error.ts';

const NEWLINE = 0x0a;

/**
 * The stream's steps as decodeResultFile gives them for the same bytes whole. A line longer
 * than `maxLineBytes` is refused (too_large) as soon as it is, so one endless line is held
 * no further than that. A byte that is not UTF-8 is refused naming its offset and line.
 */
export async function decodeK6NdjsonChunks(
  chunks: AsyncIterable<Uint8Array>,
  options: { maxLineBytes: number; lineSetting?: string },
): Promise<K6NdjsonDecoded> {
  const agg = new K6NdjsonAggregator();
  /** Bytes of the unfinished line, and how many. */
  let held: Buffer[] = [];
  let heldBytes = 0;
  /** Bytes fed to the aggregator so far. */
  let fed = 0;
  let content = false;

  const feed = (bytes: Buffer) => {
    if (!isUtf8(bytes)) {
      const at = invalidUtf8At(bytes);
      let line = agg.linesRead + 1;
      for (let i = bytes.indexOf(NEWLINE); i !== -1 && i < at; i = bytes.indexOf(NEWLINE, i + 1))
        line++;
      throw new ResultFileError(
        'invalid_utf8',
        `the file is not valid UTF-8 (byte ${fed + at + 1}, line ${line}); result files are UTF-8 text`,
        { line },
      );
    }
    const text = bytes.toString('utf8');
    // \s takes in U+FEFF: a byte order mark alone is an empty file, as when it is read whole.
    if (!content) content = /\S/.test(text);
    fed += bytes.length;
    agg.write(text);
  };
  const tooLong = () =>
    new ResultFileError(
      'too_large',
      `line ${agg.linesRead + 1} is longer than ${options.maxLineBytes} bytes${options.lineSetting ? `, the limit of a line set by ${options.lineSetting}` : ''}`,
      { line: agg.linesRead + 1 },
    );

  for await (const chunk of chunks) {
    const bytes = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk);
    const nl = bytes.lastIndexOf(NEWLINE);
    if (nl === -1) {
      held.push(bytes);
      heldBytes += bytes.length;
      if (heldBytes > options.maxLineBytes) throw tooLong();
      continue;
    }
    // A newline is never inside a multi-byte sequence: the lines cut here are whole UTF-8.
    const lines = bytes.subarray(0, nl + 1);
    feed(held.length === 0 ? lines : Buffer.concat([...held, lines]));
    const rest = bytes.subarray(nl + 1);
    held = rest.length > 0 ? [rest] : [];
    heldBytes = rest.length;
    if (heldBytes > options.maxLineBytes) throw tooLong();
  }
  if (heldBytes > 0) feed(Buffer.concat(held));
  if (!content) throw new ResultFileError('empty', 'the file is empty');
  return agg.end(fed);
}
