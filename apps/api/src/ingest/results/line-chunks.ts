// A line-oriented result file decoded from its bytes as they arrive: each run of whole lines
// is checked as UTF-8 and written to the format's aggregator, so what is held is the
// aggregator's state and at most one unfinished line, never the file. k6's --out json stream
// and the raw-sample formats (hey's CSV, JMeter's JTL...) are read through it.

import { isUtf8 } from 'node:buffer';
import { invalidUtf8At } from '../stored-text.ts';
import { gatlingBinaryHint } from './gatling-binary.ts';
import { ResultFileError } from './result-file-error.ts';

const NEWLINE = 0x0a;

/** What takes the lines: text of whole lines (the last may be unfinished at the end). */
export interface LineSink {
  write(text: string): void;
  /** Lines taken so far (for where an error is). */
  readonly linesRead: number;
}

export interface LineChunkLimits {
  maxLineBytes: number;
  /** The setting that sets maxLineBytes, named in the error. */
  lineSetting?: string;
}

/**
 * Feeds `chunks` to `sink` line by line; returns how many bytes were fed. A line longer than
 * `maxLineBytes` is refused (too_large) as soon as it is, so one endless line is held no
 * further than that. A byte that is not UTF-8 is refused naming its offset and line; a body
 * of nothing but white space is refused as empty.
 */
export async function feedLineChunks(
  chunks: AsyncIterable<Uint8Array>,
  sink: LineSink,
  options: LineChunkLimits,
): Promise<number> {
  /** Bytes of the unfinished line, and how many. */
  let held: Buffer[] = [];
  let heldBytes = 0;
  /** Bytes fed to the sink so far. */
  let fed = 0;
  let content = false;

  const feed = (bytes: Buffer) => {
    if (!isUtf8(bytes)) {
      const at = invalidUtf8At(bytes);
      let line = sink.linesRead + 1;
      for (let i = bytes.indexOf(NEWLINE); i !== -1 && i < at; i = bytes.indexOf(NEWLINE, i + 1))
        line++;
      throw new ResultFileError(
        'invalid_utf8',
        `the file is not valid UTF-8 (byte ${fed + at + 1}, line ${line}); result files are UTF-8 text${fed === 0 ? gatlingBinaryHint(bytes) : ''}`,
        { line },
      );
    }
    const text = bytes.toString('utf8');
    // \s takes in U+FEFF: a byte order mark alone is an empty file, as when it is read whole.
    if (!content) content = /\S/.test(text);
    fed += bytes.length;
    sink.write(text);
  };
  const tooLong = () =>
    new ResultFileError(
      'too_large',
      `line ${sink.linesRead + 1} is longer than ${options.maxLineBytes} bytes${options.lineSetting ? `, the limit of a line set by ${options.lineSetting}` : ''}`,
      { line: sink.linesRead + 1 },
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
  return fed;
}
