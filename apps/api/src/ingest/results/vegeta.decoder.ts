// Vegeta's results as JSON (`vegeta encode -to json`, its default encoding): one object per
// request, raw. Follows tsenart/vegeta at cf5811269046c672a604b1eb352204d30f16ae4a
// (2026-02-16): lib/results.go Result {attack, seq, code, timestamp, latency, bytes_out,
// bytes_in, error, body, method, url, headers} written by NewJSONEncoder (easyjson,
// lib/results_easyjson.go: latency as int64 nanoseconds, timestamp as time.Time's RFC 3339
// with nanoseconds, one object and "\n" a result); lib/metrics.go Add counts a success for
// 200 <= code < 400 and keys status_codes by the code, 0 when no response came. Before
// eb9b363 (2018-05-25, named attacks) a result had no attack and seq and was written by
// encoding/json: {"code":..,"timestamp":..,"latency":..,...}; both generations are read.
// Latencies are counted per whole microsecond (truncated), so memory is bounded by their
// range: each percentile is the nearest rank to within 1 us ([lower, upper] = [v, v + 1 us]).
import { UNSPECIFIED_MODE } from '@meshbench/schema';
import { TickCounts } from '../../domain/tick-counts.ts';
import { formatTimestampUs, parseTimestampUs } from '../timestamps.ts';
import {
  decodeSampleText,
  LineSplitter,
  type SampleAggregator,
  type SampleDecoded,
  sampleResult,
} from './raw-samples.ts';
import { ResultFileError } from './result-file-error.ts';

/** A line Vegeta's JSON encoder writes: opening with attack and seq, or (before 2018) code. */
export function isVegetaLine(line: string): boolean {
  const t = line.trim();
  return (
    /^\{"attack":"(?:[^"\\]|\\.)*","seq":\d+,"code":\d+,/.test(t) ||
    /^\{"code":\d+,"timestamp":"[^"]*","latency":\d+,/.test(t)
  );
}

const UNMAPPED = ['bytes_out', 'bytes_in', 'error', 'body', 'method', 'url', 'headers'];

export class VegetaJsonAggregator implements SampleAggregator {
  private readonly lines = new LineSplitter((line, no) => this.line(line, no));
  /** Whole microseconds, truncated from Vegeta's nanoseconds. */
  private readonly counts = new TickCounts(0.001, { below: 0, above: 1 });
  private firstStartUs = Number.POSITIVE_INFINITY;
  private lastEndUs = Number.NEGATIVE_INFINITY;
  private errors = 0;
  private readonly errorsByCode: Record<string, number> = {};
  private readonly attacks = new Set<string>();

  get linesRead(): number {
    return this.lines.linesRead;
  }

  write(text: string): void {
    this.lines.write(text);
  }

  private line(line: string, no: number): void {
    if (line.trim() === '') return;
    let o: { code?: unknown; timestamp?: unknown; latency?: unknown; attack?: unknown };
    try {
      o = JSON.parse(line);
    } catch {
      throw new ResultFileError('invalid_line', `line ${no}: not a JSON object`, { line: no });
    }
    const bad = (field: string, what: string) =>
      new ResultFileError('invalid_line', `line ${no}: ${field} ${what}`, { line: no, field });
    if (typeof o !== 'object' || o === null) throw bad('line', 'is not a JSON object');
    const { code, timestamp, latency } = o;
    if (!Number.isSafeInteger(latency) || (latency as number) < 0) {
      throw bad('latency', 'must be a whole number of nanoseconds >= 0');
    }
    if (!Number.isInteger(code) || (code as number) < 0 || (code as number) > 65535) {
      throw bad('code', 'must be an HTTP status (0 when no response came)');
    }
    const startUs = typeof timestamp === 'string' ? parseTimestampUs(timestamp) : null;
    if (startUs === null) throw bad('timestamp', 'must be an RFC 3339 timestamp');
    this.add(code as number, startUs, latency as number, o.attack);
  }

  /** One request: its status (0: no response), start (epoch us) and latency (ns). */
  add(status: number, startUs: number, ns: number, attack: unknown): void {
    this.counts.add(Math.floor(ns / 1000));
    if (startUs < this.firstStartUs) this.firstStartUs = startUs;
    // Whole us: an epoch in us as a double has no room for fractions (timestamps are read to
    // the us), so the span is the measured one to within 1 us.
    const endUs = startUs + Math.floor(ns / 1000);
    if (endUs > this.lastEndUs) this.lastEndUs = endUs;
    if (status < 200 || status >= 400) {
      this.errors++;
      this.errorsByCode[String(status)] = (this.errorsByCode[String(status)] ?? 0) + 1;
    }
    if (typeof attack === 'string' && this.attacks.size < 2) this.attacks.add(attack);
  }

  end(): SampleDecoded {
    if (this.counts.count === 0) throw new ResultFileError('empty', 'the file is empty');
    const [attack] = this.attacks;
    const result = sampleResult(this.counts, {
      mode: UNSPECIFIED_MODE,
      // From the first request's start to the last one's end, to the microsecond.
      durationMs: (this.lastEndUs - this.firstStartUs) / 1000,
      errors: this.errors,
      errorsByCode: this.errorsByCode,
      labels: { tool: 'vegeta', ...(this.attacks.size === 1 && attack ? { attack } : {}) },
      startedAt: formatTimestampUs(Math.floor(this.firstStartUs)),
    });
    return { results: [result], unmapped: UNMAPPED };
  }
}

export const decodeVegetaJson = (text: string): SampleDecoded =>
  decodeSampleText(new VegetaJsonAggregator(), text);
