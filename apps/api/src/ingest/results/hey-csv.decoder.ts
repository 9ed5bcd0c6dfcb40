// hey's `-o csv` output: one line per request that got a response, raw samples.
// Follows rakyll/hey at 898582754e00405372f0686641441168f4e2f489 (2021-03-23):
// requester/print.go csvTmpl writes the header
//   response-time,DNS+dialup,DNS,Request-write,Response-delay,Response-read,status-code,offset
// then each value with formatNumber, fmt.Sprintf("%4.4f", seconds): rounded to 0.1 ms, so a
// recorded value is within 0.05 ms of the measured one. status-code came with #122 (9fdda5a,
// 2018-09) and offset (seconds since the run's start, when the request started) with #126
// (3dd8421, 2018-09); the earlier header ends at Response-read and is still read.
// requester/report.go runReporter writes a request to the CSV only when it has no error (a
// failed connection or timeout is counted in errorDist, which the CSV does not carry) and
// keeps at most maxRes (1,000,000) of them: the file's rows are hey's samples, not every try.
import { UNSPECIFIED_MODE } from '@meshbench/schema';
import { TickCounts } from '../../domain/tick-counts.ts';
import {
  decodeSampleText,
  LineSplitter,
  type SampleAggregator,
  type SampleDecoded,
  sampleNumber,
  sampleResult,
} from './raw-samples.ts';
import { ResultFileError } from './result-file-error.ts';

/** The header generations hey has written, newest first. */
const HEADERS = [
  'response-time,DNS+dialup,DNS,Request-write,Response-delay,Response-read,status-code,offset',
  'response-time,DNS+dialup,DNS,Request-write,Response-delay,Response-read,status-code',
  'response-time,DNS+dialup,DNS,Request-write,Response-delay,Response-read',
];

/** Whether a line is a header hey -o csv writes. */
export function isHeyCsvHeader(line: string): boolean {
  return HEADERS.includes(line.trim());
}

/** 0.1 ms ticks: hey prints seconds with 4 decimals, rounded to the nearest. */
const TICKS_PER_SECOND = 10_000;

export class HeyCsvAggregator implements SampleAggregator {
  private readonly lines = new LineSplitter((line, no) => this.line(line, no));
  private readonly counts = new TickCounts(0.1, { below: 0.5, above: 0.5 });
  private columns = 0;
  private statusAt = -1;
  private offsetAt = -1;
  /** Latest request end (offset + response time), ticks since the run's start. */
  private lastEnd = 0;
  private errors = 0;
  private readonly errorsByCode: Record<string, number> = {};

  get linesRead(): number {
    return this.lines.linesRead;
  }

  write(text: string): void {
    this.lines.write(text);
  }

  private line(line: string, no: number): void {
    if (this.columns === 0) {
      if (line.trim() === '') return;
      if (!isHeyCsvHeader(line)) {
        throw new ResultFileError(
          'invalid_line',
          `line ${no}: not a header hey -o csv writes (expected "${HEADERS[0]}" or an earlier one)`,
          { line: no },
        );
      }
      const names = line.trim().split(',');
      this.columns = names.length;
      this.statusAt = names.indexOf('status-code');
      this.offsetAt = names.indexOf('offset');
      return;
    }
    if (line === '') return;
    const cells = line.split(',');
    if (cells.length !== this.columns) {
      throw new ResultFileError(
        'invalid_line',
        `line ${no}: ${cells.length} columns, the header has ${this.columns}`,
        { line: no },
      );
    }
    const tick = Math.round(sampleNumber(cells[0], no, 'response-time') * TICKS_PER_SECOND);
    this.counts.add(tick);
    if (this.statusAt >= 0) {
      const code = cells[this.statusAt] as string;
      if (!/^\d{1,3}$/.test(code)) {
        throw new ResultFileError(
          'invalid_line',
          `line ${no}: status-code "${code.slice(0, 40)}" is not an HTTP status`,
          { line: no, field: 'status-code' },
        );
      }
      if (code >= '400' && code.length === 3) {
        this.errors++;
        this.errorsByCode[code] = (this.errorsByCode[code] ?? 0) + 1;
      }
    }
    if (this.offsetAt >= 0) {
      const offset = Math.round(
        sampleNumber(cells[this.offsetAt], no, 'offset') * TICKS_PER_SECOND,
      );
      if (offset + tick > this.lastEnd) this.lastEnd = offset + tick;
    }
  }

  end(): SampleDecoded {
    if (this.columns === 0) throw new ResultFileError('empty', 'the file is empty');
    const withOffsets = this.offsetAt >= 0;
    const result = sampleResult(this.counts, {
      mode: UNSPECIFIED_MODE,
      // From the run's start (offset 0) to the last recorded request's end.
      durationMs: withOffsets && this.counts.count > 0 ? this.counts.ms(this.lastEnd) : null,
      // HTTP statuses >= 400 from the file; hey's own errors (no response) are not in it.
      errors: this.statusAt >= 0 ? this.errors : null,
      errorsByCode: this.errorsByCode,
      labels: { tool: 'hey' },
    });
    const unmapped = ['DNS+dialup', 'DNS', 'Request-write', 'Response-delay', 'Response-read'];
    return { results: [result], unmapped };
  }
}

export const decodeHeyCsv = (text: string): SampleDecoded =>
  decodeSampleText(new HeyCsvAggregator(), text);
