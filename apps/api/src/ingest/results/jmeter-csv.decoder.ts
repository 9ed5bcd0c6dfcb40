// JMeter's JTL results in CSV: one line per sample, raw, elapsed in whole ms.
// Follows apache/jmeter at bb30edfe8c3157c1ca57e810a569bf5cbe983837 (2026-06-26):
// src/core/.../save/CSVSaveService.java printableFieldNamesToString (the column order:
// timeStamp, elapsed, label, responseCode, responseMessage, threadName, dataType, success,
// failureMessage, bytes, sentBytes, grpThreads, allThreads, URL, Latency, IdleTime, Connect,
// each only when saved) and quoteDelimiters (a cell holding the delimiter, a quote, CR or LF
// is quoted, quotes doubled); samplers/SampleSaveConfiguration.java for what is saved by
// default. A header is written by default since 3.0 (print_field_names); before, JMeter 2.x
// (tag v2_13) wrote none, and its default columns were timeStamp, elapsed, label,
// responseCode, responseMessage, threadName, dataType, success, bytes, grpThreads,
// allThreads, Latency (12). A file without a header is read by its column count: 12 as 2.x
// wrote it, 17 as today's defaults with print_field_names=false write it.
// samplers/SampleResult.java: elapsed = endTime - startTime - idleTime, each a whole ms
// (System.nanoTime() / 1000000 plus an offset, or currentTimeMillis), so the measured time
// lies within 1 ms either side of the recorded one; timeStamp is the start
// (bin/jmeter.properties sampleresult.timestamp.start=true), epoch ms by default.
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

const DEFAULT_COLUMNS = [
  'timeStamp',
  'elapsed',
  'label',
  'responseCode',
  'responseMessage',
  'threadName',
  'dataType',
  'success',
  'failureMessage',
  'bytes',
  'sentBytes',
  'grpThreads',
  'allThreads',
  'URL',
  'Latency',
  'IdleTime',
  'Connect',
];
const V2_COLUMNS = [
  'timeStamp',
  'elapsed',
  'label',
  'responseCode',
  'responseMessage',
  'threadName',
  'dataType',
  'success',
  'bytes',
  'grpThreads',
  'allThreads',
  'Latency',
];
/** Columns JMeter writes that a load result has no place for. */
const UNMAPPED = [
  'responseMessage',
  'threadName',
  'dataType',
  'failureMessage',
  'bytes',
  'sentBytes',
  'grpThreads',
  'allThreads',
  'URL',
  'Latency',
  'IdleTime',
  'Connect',
];

/** A JTL CSV header: its cells are JMeter's column names, `elapsed` among them. */
export function isJmeterCsvHeader(line: string): boolean {
  const cells = line.trim().split(line.includes('\t') ? '\t' : ',');
  return cells.includes('elapsed') && (cells.includes('timeStamp') || cells.includes('label'));
}

/** A JTL CSV line without a header: epoch ms, elapsed ms, then the rest. */
export function isJmeterCsvSample(line: string): boolean {
  return /^\d{12,13},\d+,/.test(line);
}

/** The cells of one CSV record, or null when a quoted cell goes on to the next line. */
function cellsOf(record: string, delimiter: string): string[] | null {
  if (!record.includes('"')) return record.split(delimiter);
  const cells: string[] = [];
  let i = 0;
  for (;;) {
    if (record[i] === '"') {
      let cell = '';
      let j = i + 1;
      for (;;) {
        const q = record.indexOf('"', j);
        if (q === -1) return null;
        cell += record.slice(j, q);
        if (record[q + 1] === '"') {
          cell += '"';
          j = q + 2;
          continue;
        }
        i = q + 1;
        break;
      }
      cells.push(cell);
      if (i >= record.length) return cells;
      // After a closing quote: the delimiter (anything else is kept, as JMeter's reader does).
      const next = record.indexOf(delimiter, i);
      if (next === -1) return cells;
      i = next + delimiter.length;
    } else {
      const next = record.indexOf(delimiter, i);
      if (next === -1) {
        cells.push(record.slice(i));
        return cells;
      }
      cells.push(record.slice(i, next));
      i = next + delimiter.length;
    }
  }
}

export class JmeterCsvAggregator implements SampleAggregator {
  private readonly lines = new LineSplitter((line, no) => this.line(line, no));
  private readonly counts = new TickCounts(1, { below: 1, above: 1 });
  private columns: string[] | null = null;
  private delimiter = ',';
  private at = { timeStamp: -1, elapsed: -1, label: -1, responseCode: -1, success: -1 };
  /** A record whose quoted cell goes on past its line, and the line it began on. */
  private pending: string | null = null;
  private pendingLine = 0;
  private firstStart = Number.POSITIVE_INFINITY;
  private lastEnd = Number.NEGATIVE_INFINITY;
  private timed = true;
  private errors = 0;
  private readonly errorsByCode: Record<string, number> = {};
  private readonly labels = new Set<string>();

  get linesRead(): number {
    return this.lines.linesRead;
  }

  write(text: string): void {
    this.lines.write(text);
  }

  private use(columns: string[]): void {
    this.columns = columns;
    for (const name of Object.keys(this.at) as (keyof typeof this.at)[]) {
      this.at[name] = columns.indexOf(name);
    }
  }

  private line(line: string, no: number): void {
    if (this.columns === null) {
      if (line.trim() === '') return;
      if (isJmeterCsvHeader(line)) {
        this.delimiter = line.includes('\t') ? '\t' : ',';
        this.use(line.trim().split(this.delimiter));
        return;
      }
      const cells = isJmeterCsvSample(line) ? cellsOf(line, ',') : null;
      const columns =
        cells?.length === DEFAULT_COLUMNS.length
          ? DEFAULT_COLUMNS
          : cells?.length === V2_COLUMNS.length
            ? V2_COLUMNS
            : null;
      if (!columns) {
        throw new ResultFileError(
          'invalid_line',
          `line ${no}: neither a JMeter CSV header (with "elapsed") nor a sample in the ${DEFAULT_COLUMNS.length} or ${V2_COLUMNS.length} columns JMeter writes by default without one`,
          { line: no },
        );
      }
      this.use(columns);
    }
    let record = line;
    let from = no;
    if (this.pending !== null) {
      record = `${this.pending}\n${line}`;
      from = this.pendingLine;
    } else if (line === '') {
      return;
    }
    const cells = cellsOf(record, this.delimiter);
    if (cells === null) {
      this.pending = record;
      this.pendingLine = from;
      return;
    }
    this.pending = null;
    this.sample(cells, from);
  }

  private sample(cells: string[], no: number): void {
    const columns = this.columns as string[];
    if (cells.length !== columns.length) {
      throw new ResultFileError(
        'invalid_line',
        `line ${no}: ${cells.length} columns, ${columns.length} expected (${columns.join(',')})`,
        { line: no },
      );
    }
    const elapsed = sampleNumber(cells[this.at.elapsed], no, 'elapsed');
    if (!Number.isInteger(elapsed)) {
      throw new ResultFileError('invalid_line', `line ${no}: elapsed is not whole ms`, {
        line: no,
        field: 'elapsed',
      });
    }
    this.counts.add(elapsed);
    if (this.at.timeStamp >= 0 && this.timed) {
      const stamp = cells[this.at.timeStamp] as string;
      // Epoch ms (JMeter's default); a formatted timeStamp gives no duration.
      if (/^\d{1,15}$/.test(stamp)) {
        const start = Number(stamp);
        if (start < this.firstStart) this.firstStart = start;
        if (start + elapsed > this.lastEnd) this.lastEnd = start + elapsed;
      } else this.timed = false;
    }
    if (this.at.success >= 0 && cells[this.at.success] !== 'true') {
      this.errors++;
      const code = this.at.responseCode >= 0 ? (cells[this.at.responseCode] as string) : '';
      const key = code === '' ? 'failed' : code.slice(0, 100);
      this.errorsByCode[key] = (this.errorsByCode[key] ?? 0) + 1;
    }
    if (this.at.label >= 0 && this.labels.size < 2) this.labels.add(cells[this.at.label] as string);
  }

  end(): SampleDecoded {
    if (this.columns === null) throw new ResultFileError('empty', 'the file is empty');
    if (this.at.elapsed < 0) {
      throw new ResultFileError(
        'no_results',
        'the JMeter CSV has no "elapsed" column (jmeter.save.saveservice.time=false): no latency to import',
      );
    }
    if (this.pending !== null) {
      throw new ResultFileError(
        'truncated',
        `line ${this.pendingLine}: a quoted cell is not closed by the end of the file`,
        { line: this.pendingLine },
      );
    }
    const timed = this.timed && this.counts.count > 0 && this.at.timeStamp >= 0;
    const [label] = this.labels;
    const result = sampleResult(this.counts, {
      mode: UNSPECIFIED_MODE,
      // From the first sample's start to the last one's end.
      durationMs: timed ? this.lastEnd - this.firstStart : null,
      errors: this.at.success >= 0 ? this.errors : null,
      errorsByCode: this.errorsByCode,
      labels: {
        tool: 'jmeter',
        ...(this.labels.size === 1 && label !== undefined ? { label } : {}),
      },
      startedAt: timed ? new Date(this.firstStart).toISOString() : null,
    });
    return {
      results: [result],
      unmapped: UNMAPPED.filter((c) => this.columns?.includes(c)),
    };
  }
}

export const decodeJmeterCsv = (text: string): SampleDecoded =>
  decodeSampleText(new JmeterCsvAggregator(), text);
