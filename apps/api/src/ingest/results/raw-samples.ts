// Raw-sample result files (one line per request: hey's CSV, JMeter's JTL...): each format's
// aggregator takes the file's lines, whole or as they arrive, and keeps counts, never the
// samples, so a file of any size is read in memory bounded by its range of latencies.
import type { LoadResult } from '@meshbench/schema';
import type { TickCounts } from '../../domain/tick-counts.ts';
import type { LineSink } from './line-chunks.ts';
import { ResultFileError } from './result-file-error.ts';
import { emptyResult } from './values.ts';

/** Percentiles a raw-sample point is stored with (any other is asked of its samples' counts). */
export const RAW_PERCENTILES = [50, 75, 90, 95, 99, 99.9, 99.99, 100];

export interface SampleDecoded {
  results: LoadResult[];
  unmapped: string[];
}

export interface SampleAggregator extends LineSink {
  end(): SampleDecoded;
}

/** Splits whole lines (the last of a write may lack its newline only at the file's end). */
export class LineSplitter {
  linesRead = 0;
  constructor(private readonly onLine: (line: string, lineNo: number) => void) {}

  write(text: string): void {
    let from = 0;
    while (from < text.length) {
      let nl = text.indexOf('\n', from);
      if (nl === -1) nl = text.length;
      let end = nl;
      if (end > from && text.charCodeAt(end - 1) === 13) end--;
      this.linesRead++;
      this.onLine(text.slice(from, end), this.linesRead);
      from = nl + 1;
    }
  }
}

/** The whole text of a raw-sample file through its aggregator. */
export function decodeSampleText(agg: SampleAggregator, text: string): SampleDecoded {
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  if (!/\S/.test(body)) throw new ResultFileError('empty', 'the file is empty');
  agg.write(body);
  return agg.end();
}

/** A field that must be a number >= 0, or a 400 naming its line and column. */
export function sampleNumber(text: string | undefined, line: number, field: string): number {
  const v = text === undefined || text === '' ? Number.NaN : Number(text);
  if (!(v >= 0) || !Number.isFinite(v)) {
    throw new ResultFileError(
      'invalid_line',
      `line ${line}: ${field} ${text === undefined ? 'is missing' : `"${text.slice(0, 40)}" is not a number >= 0`}`,
      { line, field },
    );
  }
  return v;
}

/** A point from counted samples: requests, errors, latency statistics and percentiles. */
export function sampleResult(
  counts: TickCounts,
  rest: Partial<LoadResult> & { errors: number | null; errorsByCode: Record<string, number> },
): LoadResult {
  const moments = counts.moments();
  const durationMs = rest.durationMs ?? null;
  return {
    ...emptyResult(),
    requests: counts.count,
    achievedRps: durationMs && durationMs > 0 ? counts.count / (durationMs / 1000) : null,
    percentiles: counts.percentiles(RAW_PERCENTILES),
    minMs: counts.count > 0 ? counts.ms(counts.min) : null,
    maxMs: counts.count > 0 ? counts.ms(counts.max) : null,
    meanMs: moments?.meanMs ?? null,
    stdDevMs: moments?.stdDevMs ?? null,
    ...rest,
  };
}
