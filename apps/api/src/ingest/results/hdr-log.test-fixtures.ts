// HdrHistogram interval logs written by hdr-histogram-js's own HistogramLogWriter from seeded
// raw latencies, with the raw values kept to check what meshbench makes of the log.
import { build, HistogramLogWriter } from 'hdr-histogram-js';
import { prng } from '../../demo/prng.ts';

export interface WrittenLog {
  text: string;
  /** Every recorded value (microseconds), and per interval its start (ms since epoch). */
  values: number[];
  intervals: { startMs: number; values: number[] }[];
}

export function writeHdrLog(opts: {
  seed: number;
  startMs: number;
  intervals: number;
  perInterval: number;
  intervalMs?: number;
  medianUs?: number;
  tag?: string;
  /** The log's StartTime and base of its relative timestamps (default startMs). */
  baseMs?: number;
}): WrittenLog {
  const rnd = prng(opts.seed);
  const intervalMs = opts.intervalMs ?? 1000;
  let text = '';
  const writer = new HistogramLogWriter((s) => {
    text += s;
  });
  writer.outputLogFormatVersion();
  writer.outputStartTime(opts.baseMs ?? opts.startMs);
  writer.baseTime = opts.baseMs ?? opts.startMs;
  writer.outputLegend();
  const all: number[] = [];
  const intervals: WrittenLog['intervals'] = [];
  for (let i = 0; i < opts.intervals; i++) {
    const h = build({ numberOfSignificantValueDigits: 3 });
    const values: number[] = [];
    for (let k = 0; k < opts.perInterval; k++) {
      const v = Math.max(1, Math.round(rnd.logNormal(opts.medianUs ?? 2000, 0.6)));
      h.recordValue(v);
      values.push(v);
    }
    const startMs = opts.startMs + i * intervalMs;
    h.startTimeStampMsec = startMs;
    h.endTimeStampMsec = startMs + intervalMs;
    if (opts.tag) h.tag = opts.tag;
    writer.outputIntervalHistogram(h);
    all.push(...values);
    intervals.push({ startMs, values });
  }
  return { text, values: all, intervals };
}
