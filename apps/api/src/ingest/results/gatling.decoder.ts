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
// binary log file") simulation.log is a binary file, read from its bytes by
// gatling-binary.decoder.ts; as text it is refused by name.
export { gatlingBinaryHint, isGatlingBinaryLog } from './gatling-binary.ts';

import { GATLING_BINARY_AS_TEXT, isGatlingBinaryLog } from './gatling-binary.ts';
import { GatlingRequests } from './gatling-requests.ts';
import {
  decodeSampleText,
  LineSplitter,
  type SampleAggregator,
  type SampleDecoded,
  sampleNumber,
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
  private readonly requests = new GatlingRequests();
  private run: string[] | null = null;

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
        throw new ResultFileError('invalid_line', `line 1: ${GATLING_BINARY_AS_TEXT}`, { line: 1 });
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
    this.requests.add(cells[2] as string, start, end, status === 'OK', cells[6] as string);
  }

  end(): SampleDecoded {
    if (this.run === null) throw new ResultFileError('empty', 'the file is empty');
    const [, simulation = '', , , , version = ''] = this.run;
    return this.requests.end({ simulation, version }, UNMAPPED);
  }
}

export const decodeGatlingLog = (text: string): SampleDecoded =>
  decodeSampleText(new GatlingLogAggregator(), text);
