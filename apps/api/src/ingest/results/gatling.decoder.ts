// Gatling's simulation.log in its text layout (Gatling 3 up to 3.12): one tab-separated
// record a line, raw, times in epoch ms. Follows gatling/gatling at tag v3.12.0
// (a2e56a0f0e0eca0bcfa29219efc61bce37c62d73): gatling-core .../stats/writer/
// LogFileDataWriter.scala and RawRecords.scala. Each record opens with its header (RUN,
// REQUEST, USER, GROUP, ERROR, ASSERTION) and a tab:
//   RUN     simulationClassName, simulationId, start, runDescription (" " when empty), version
//   REQUEST groups (","-joined), name, startTimestamp, endTimestamp, OK|KO, message (" " when none)
// timestamps are System.currentTimeMillis whole ms, so end - start is the response time to
// within 1 ms either side (bound as JMeter's elapsed). Only REQUEST records are counted; KO
// ones are the errors, keyed by their message. From Gatling 3.13.0 (efd3ec7ce, "switch to a
// binary log file") simulation.log is a binary file (RecordHeader bytes 0-4, big-endian ints,
// cached strings); that layout is not read here: such a file is refused by name.
export { gatlingBinaryHint, isGatlingBinaryLog } from './gatling-binary.ts';

import { UNSPECIFIED_MODE } from '@meshbench/schema';
import { TickCounts } from '../../domain/tick-counts.ts';
import { GATLING_BINARY, isGatlingBinaryLog } from './gatling-binary.ts';
import {
  decodeSampleText,
  LineSplitter,
  type SampleAggregator,
  type SampleDecoded,
  sampleNumber,
  sampleResult,
} from './raw-samples.ts';
import { ResultFileError } from './result-file-error.ts';

const HEADERS = new Set(['RUN', 'REQUEST', 'USER', 'GROUP', 'ERROR', 'ASSERTION']);

/** The RUN record a text simulation.log opens with (6 tab-separated cells). */
export function isGatlingRunLine(line: string): boolean {
  return /^RUN\t[^\t]*\t[^\t]*\t\d{1,15}\t[^\t]*\t[^\t]*$/.test(line);
}

const UNMAPPED = ['groups', 'USER', 'GROUP', 'ERROR', 'ASSERTION'];

export class GatlingLogAggregator implements SampleAggregator {
  private readonly lines = new LineSplitter((line, no) => this.line(line, no));
  /** Whole ms, each within 1 ms either side of the measured time. */
  private readonly counts = new TickCounts(1, { below: 1, above: 1 });
  private run: string[] | null = null;
  private firstStart = Number.POSITIVE_INFINITY;
  private lastEnd = Number.NEGATIVE_INFINITY;
  private errors = 0;
  private readonly errorsByCode: Record<string, number> = {};
  private readonly names = new Set<string>();

  get linesRead(): number {
    return this.lines.linesRead;
  }

  write(text: string): void {
    this.lines.write(text);
  }

  private line(line: string, no: number): void {
    if (line === '') return;
    if (this.run === null) {
      if (no === 1 && isGatlingBinaryLog(line)) {
        throw new ResultFileError('invalid_line', `line 1: ${GATLING_BINARY}`, { line: 1 });
      }
      if (!isGatlingRunLine(line)) {
        throw new ResultFileError(
          'invalid_line',
          `line ${no}: not the RUN record a Gatling simulation.log opens with (RUN, simulation, id, start ms, description, version; tab-separated)`,
          { line: no },
        );
      }
      this.run = line.split('\t');
      return;
    }
    const tab = line.indexOf('\t');
    const header = tab === -1 ? line : line.slice(0, tab);
    if (!HEADERS.has(header)) {
      throw new ResultFileError(
        'invalid_line',
        `line ${no}: "${header.slice(0, 40)}" is no Gatling record (${[...HEADERS].join(', ')})`,
        { line: no },
      );
    }
    if (header !== 'REQUEST') return;
    const cells = line.split('\t');
    if (cells.length !== 7) {
      throw new ResultFileError(
        'invalid_line',
        `line ${no}: a REQUEST record has ${cells.length} cells, 7 expected (REQUEST, groups, name, start, end, status, message)`,
        { line: no },
      );
    }
    const start = sampleNumber(cells[3], no, 'startTimestamp');
    const end = sampleNumber(cells[4], no, 'endTimestamp');
    if (!Number.isInteger(start) || !Number.isInteger(end) || end < start) {
      throw new ResultFileError(
        'invalid_line',
        `line ${no}: endTimestamp ${cells[4]} and startTimestamp ${cells[3]} must be whole ms, end >= start`,
        { line: no, field: 'endTimestamp' },
      );
    }
    const status = cells[5];
    if (status !== 'OK' && status !== 'KO') {
      throw new ResultFileError('invalid_line', `line ${no}: status must be OK or KO`, {
        line: no,
        field: 'status',
      });
    }
    this.counts.add(end - start);
    if (start < this.firstStart) this.firstStart = start;
    if (end > this.lastEnd) this.lastEnd = end;
    if (status === 'KO') {
      this.errors++;
      const message = (cells[6] as string).trim();
      const key = message === '' ? 'KO' : message.slice(0, 100);
      this.errorsByCode[key] = (this.errorsByCode[key] ?? 0) + 1;
    }
    if (this.names.size < 2) this.names.add(cells[2] as string);
  }

  end(): SampleDecoded {
    if (this.run === null) throw new ResultFileError('empty', 'the file is empty');
    if (this.counts.count === 0) {
      throw new ResultFileError('no_results', 'the simulation.log has no REQUEST record');
    }
    const [, simulation, , , , version] = this.run;
    const [name] = this.names;
    const result = sampleResult(this.counts, {
      mode: UNSPECIFIED_MODE,
      // From the first request's start to the last one's end.
      durationMs: this.lastEnd - this.firstStart,
      errors: this.errors,
      errorsByCode: this.errorsByCode,
      labels: {
        tool: 'gatling',
        ...(simulation ? { simulation } : {}),
        ...(version ? { gatlingVersion: version } : {}),
        ...(this.names.size === 1 && name !== undefined ? { request: name } : {}),
      },
      startedAt: new Date(this.firstStart).toISOString(),
    });
    return { results: [result], unmapped: UNMAPPED };
  }
}

export const decodeGatlingLog = (text: string): SampleDecoded =>
  decodeSampleText(new GatlingLogAggregator(), text);
