// k6's `--out json` stream (one JSON object a line) to load results per k6 scenario, each
// with interval histograms, aggregated as the lines arrive: the state kept is
// O(steps x intervals x histogram buckets), never O(samples), so a large file can be fed
// line by line (K6NdjsonAggregator.line) or chunk by chunk (write/end).
//
// Format learnt from grafana/k6 at commit 87883075ccd5e3d3fb961a860b3d6e422bbc353b:
// - internal/output/json/wrapper.go: a "Point" line is
//   {"type":"Point","metric":<name>,"data":{"time":<Go time.Time, RFC 3339 with up to 9
//   fraction digits and a zone offset>,"value":<float64>,"tags":<map of strings, or null>,
//   "metadata"?:{...}}}; a "Metric" line, written once before a metric's first point
//   (json.go handleMetric), is {"type":"Metric","metric":<name>,"data":{"name","type",
//   "contains","thresholds","submetrics"}}; json_test.go holds the exact lines.
// - metrics/builtin.go, metric_type.go: http_req_duration is a Trend of Time values
//   (milliseconds, metrics.D), http_reqs a Counter, http_req_failed a Rate (value 0 or 1),
//   iterations a Counter, vus a Gauge, data_sent/data_received Counters of bytes.
// - lib/netext/httpext/transport.go measureAndEmitMetrics and tracer.go SaveSamples: one
//   http_reqs (1), one http_req_duration and one http_req_failed (1 when the response is
//   not expected, only when a response callback is set) per request, all timed at the
//   request's end (trail.EndTime) and tagged alike: name, url, method, status ("0" when no
//   response), proto, expected_response ("true"/"false"), scenario, group (system tags
//   in metrics/system_tag.go).
//
// Each k6 scenario is one load step. Latencies are recorded in an HdrHistogram
// (hdr-histogram-js) of integer microseconds, round(ms x 1000), with 3 significant digits:
// a recorded value's bucket is at most 1/1024 of its lowest value wide (sub-bucket count
// 2048), so a percentile read from it is within 0.098 % of the true nearest-rank value,
// plus the 0.5 us of rounding to microseconds (which matters only below ~0.5 ms). Each
// percentile states its exact [lower, upper] and the relativeError that follows from them.
import { type LoadResult, MAX_DURATION_MS, type PercentileValue } from '@meshbench/schema';
import {
  build,
  decodeFromCompressedBase64,
  encodeIntoCompressedBase64,
  type JsHistogram,
} from 'hdr-histogram-js';
import { parseTimestampUs } from '../timestamps.ts';
import { ResultFileError } from './result-file-error.ts';
import { emptyResult, isRecord, modeFromLabel, Unmapped } from './values.ts';

/** HdrHistogram precision of every histogram this decoder writes. */
export const K6_HDR_SIGNIFICANT_DIGITS = 3;
/** The widest a 3-digit HdrHistogram bucket is, as a fraction of its lowest value. */
export const K6_HDR_BUCKET_RELATIVE_WIDTH = 1 / 1024;
/** Interval length when none is asked for. */
export const K6_DEFAULT_INTERVAL_MS = 1000;
/** Percentiles each step states when none are asked for. */
export const K6_DEFAULT_PERCENTILES = [50, 75, 90, 95, 99, 99.9, 99.99];
/** Steps (k6 scenarios) one file may hold. */
export const MAX_K6_STEPS = 1000;
/** Intervals one file may hold, over all its steps (a day at 1 s). */
export const MAX_K6_INTERVALS = 86_400;

export interface K6NdjsonOptions {
  /** Interval length in ms (default 1000); intervals are aligned on the epoch. */
  intervalMs?: number;
  /** Percentiles each step's result states (default K6_DEFAULT_PERCENTILES). */
  percentiles?: number[];
}

/** One interval of one step: the requests that ended in [startMs, startMs + durationMs). */
export interface K6Interval {
  /** Epoch ms, a multiple of durationMs. */
  startMs: number;
  durationMs: number;
  /** http_req_duration samples. */
  count: number;
  /** Failed requests: http_req_failed = 1, or expected_response=false when the file has no http_req_failed (0 when it has neither). */
  errors: number;
  minMs: number;
  maxMs: number;
  /** HdrHistogram V2 compressed encoding of the latencies in microseconds, 3 digits. */
  hdr: Uint8Array;
}

/** One load step (a k6 scenario): its summary, whole histogram and intervals. */
export interface K6Step {
  /** The scenario tag; null for requests that carry none. */
  scenario: string | null;
  result: LoadResult;
  /** Its first request's start, epoch us (result.startedAt holds it to the ms). */
  startedAtUs: number;
  /** The whole step's histogram, encoded as the intervals' are. */
  hdr: Uint8Array;
  /** Ascending by startMs; intervals with no http_req_duration sample are left out (their failures still count in the step's errors). */
  intervals: K6Interval[];
}

export interface K6NdjsonDecoded {
  steps: K6Step[];
  /** Metrics (and fields) in the file that have no place in a result, once each. */
  unmapped: string[];
  /**
   * The file ends inside a line (k6 stopped while writing it: no newline, not a whole JSON
   * object): its number and its first byte (1-based). The lines before it are decoded; it is not.
   */
  truncated?: { line: number; byte: number };
}

type Tags = Record<string, unknown>;

interface IntervalAcc {
  index: number;
  count: number;
  failed: number;
  unexpected: number;
  minMs: number;
  maxMs: number;
  /** Live while the interval may still receive samples; null once sealed. */
  hist: JsHistogram | null;
  sealed: Uint8Array | null;
}

interface StepAcc {
  scenario: string | null;
  hist: JsHistogram;
  count: number;
  mean: number;
  m2: number;
  minMs: number;
  maxMs: number;
  /** The step's first end time seen (epoch us): times below are kept relative to it, exact. */
  baseUs: number;
  /** Earliest request start (end - duration), ms after baseUs (may be negative). */
  firstStartMs: number;
  lastEndUs: number;
  failed: number;
  sawFailedMetric: boolean;
  unexpected: number;
  sawExpectedTag: boolean;
  errorsByCode: Map<string, number>;
  urls: Set<string>;
  protos: Set<string>;
  intervals: Map<number, IntervalAcc>;
  open: Set<number>;
  maxIndex: number;
}

const METRIC_TYPES = new Set(['counter', 'gauge', 'trend', 'rate']);
const DURATION = 'http_req_duration';
const FAILED = 'http_req_failed';
/** Metrics whose content the result already holds (http_reqs counts what http_req_duration does). */
const COVERED = new Set([DURATION, FAILED, 'http_reqs', 'vus', 'vus_max']);

function newHistogram(): JsHistogram {
  return build({
    numberOfSignificantValueDigits: K6_HDR_SIGNIFICANT_DIGITS,
    lowestDiscernibleValue: 1,
    highestTrackableValue: 2,
    autoResize: true,
  }) as JsHistogram;
}

/** HdrHistogram V2 compressed encoding (the bytes behind an interval log's base64). */
export function encodeHdr(h: JsHistogram): Uint8Array {
  return new Uint8Array(Buffer.from(encodeIntoCompressedBase64(h), 'base64'));
}

/** The histogram of an encoding written by encodeHdr (or any V2 compressed encoding). */
export function decodeHdr(bytes: Uint8Array): JsHistogram {
  const h = decodeFromCompressedBase64(Buffer.from(bytes).toString('base64')) as JsHistogram;
  // A decoded histogram is sized to what it holds; let it grow as ours do.
  h.autoResize = true;
  return h;
}

/** Whether a line opens k6's --out json stream: a Metric or Point object naming a metric. */
export function isK6NdjsonLine(line: string): boolean {
  if (!/^\s*\{/.test(line)) return false;
  let v: unknown;
  try {
    v = JSON.parse(line);
  } catch {
    return false;
  }
  return (
    isRecord(v) &&
    (v.type === 'Metric' || v.type === 'Point') &&
    typeof v.metric === 'string' &&
    isRecord(v.data)
  );
}

/**
 * Nearest-rank percentile of a histogram in ms with its bounds: hdr-histogram-js's
 * getValueAtPercentile takes rank ceil(p/100 x N) and answers the highest value of that
 * rank's bucket; the true value (in whole us, before the 0.5 us rounding) is in the bucket.
 */
export function hdrPercentile(h: JsHistogram, p: number): PercentileValue {
  const us = h.getValueAtPercentile(p);
  const low = h.lowestEquivalentValue(us);
  const high = h.highestEquivalentValue(us);
  const ms = us / 1000;
  const lower = Math.max(0, (low - 0.5) / 1000);
  const upper = (high + 0.5) / 1000;
  const out: PercentileValue = { p, ms, exact: false, method: 'hdr', lower, upper };
  if (ms > 0) out.relativeError = Math.max(ms - lower, upper - ms) / ms;
  return out;
}

/** Aggregates k6 NDJSON fed a line (or a chunk) at a time. */
export class K6NdjsonAggregator {
  private readonly intervalUs: number;
  private readonly intervalMs: number;
  private readonly percentiles: number[];
  /** Late samples are accepted into sealed intervals (decoded again); this many stay live. */
  private readonly liveIntervals: number;
  private readonly steps = new Map<string | null, StepAcc>();
  private readonly metricsSeen = new Set<string>();
  private readonly unmapped = new Unmapped();
  private intervalCount = 0;
  private maxVus: number | null = null;
  private lineNo = 0;
  private pending = '';
  private truncated: { line: number; byte: number } | undefined;

  constructor(options: K6NdjsonOptions = {}) {
    const intervalMs = options.intervalMs ?? K6_DEFAULT_INTERVAL_MS;
    if (!Number.isInteger(intervalMs) || intervalMs <= 0) {
      throw new RangeError(`intervalMs must be a positive integer, got ${intervalMs}`);
    }
    this.intervalMs = intervalMs;
    this.intervalUs = intervalMs * 1000;
    this.percentiles = options.percentiles ?? K6_DEFAULT_PERCENTILES;
    // k6 flushes its buffered samples every 200 ms (json.go flushPeriod), timed at each
    // request's end: keep about 5 s of intervals live, at least 2.
    this.liveIntervals = Math.max(2, Math.ceil(5000 / intervalMs));
  }

  /** Lines fed so far (the number of the last one). */
  get linesRead(): number {
    return this.lineNo;
  }

  /** Histograms held uncompressed now: one per step plus its live intervals. */
  get liveHistograms(): number {
    let n = 0;
    for (const s of this.steps.values()) n += 1 + s.open.size;
    return n;
  }

  /** Feeds a chunk of text; lines may span chunks. */
  write(chunk: string): void {
    let text = this.pending + chunk;
    let nl = text.indexOf('\n');
    while (nl !== -1) {
      this.line(text.slice(0, nl));
      text = text.slice(nl + 1);
      nl = text.indexOf('\n');
    }
    this.pending = text;
  }

  /**
   * Ends a write() stream and returns the decoded steps; `bytesWritten`: the UTF-8 bytes of
   * everything written, to say where a cut last line begins.
   */
  end(bytesWritten: number): K6NdjsonDecoded {
    if (this.pending !== '') {
      const last = this.pending;
      this.pending = '';
      this.lastLine(last, bytesWritten - Buffer.byteLength(last) + 1);
    }
    return this.finish();
  }

  /**
   * Feeds the file's last line when it has no newline, starting at byte `byte` (1-based). Not
   * a whole JSON object, it is where the file was cut (k6 writes a newline after every line,
   * so it stopped inside this one): left out and reported as `truncated`, the lines before it
   * kept. A whole object is a line like any other.
   */
  lastLine(raw: string, byte: number): void {
    const text = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (/\S/.test(text)) {
      try {
        JSON.parse(this.lineNo === 0 ? text.replace(/^\uFEFF/, '') : text);
      } catch {
        this.truncated = { line: ++this.lineNo, byte };
        return;
      }
    }
    this.line(raw);
  }

  /** Feeds one line (without its newline); lines are numbered from 1 in the order fed. */
  line(raw: string): void {
    const line = ++this.lineNo;
    const text = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (!/\S/.test(text)) return;
    let v: unknown;
    try {
      v = JSON.parse(line === 1 ? text.replace(/^\uFEFF/, '') : text);
    } catch (e) {
      throw new ResultFileError(
        'invalid_json',
        `line ${line} is not a JSON object: ${(e as Error).message}`,
        { line },
      );
    }
    if (!isRecord(v))
      throw invalid(line, 'type', 'must be set: each line is a k6 Metric or Point object');
    if (v.type !== 'Metric' && v.type !== 'Point') {
      throw invalid(line, 'type', `must be "Metric" or "Point", got ${JSON.stringify(v.type)}`);
    }
    if (typeof v.metric !== 'string' || v.metric === '') {
      throw invalid(line, 'metric', 'must be the metric name');
    }
    const data = v.data;
    if (!isRecord(data)) throw invalid(line, 'data', 'must be an object');
    const metric = v.metric;

    if (v.type === 'Metric') {
      if (typeof data.type !== 'string' || !METRIC_TYPES.has(data.type)) {
        throw invalid(
          line,
          'data.type',
          `must be counter, gauge, trend or rate, got ${JSON.stringify(data.type)}`,
        );
      }
      if (metric === DURATION && data.type !== 'trend')
        throw invalid(line, 'data.type', `of ${DURATION} must be trend`);
      return;
    }

    const us = typeof data.time === 'string' ? parseTimestampUs(data.time) : null;
    if (us === null) throw invalid(line, 'data.time', 'must be an RFC 3339 date-time');
    const value = data.value;
    if (typeof value !== 'number' || !Number.isFinite(value)) {
      throw invalid(line, 'data.value', 'must be a finite number');
    }
    const tags = data.tags ?? {};
    if (!isRecord(tags)) throw invalid(line, 'data.tags', 'must be an object or null');
    this.metricsSeen.add(metric);

    if (metric === DURATION) {
      if (value < 0 || value > MAX_DURATION_MS) {
        throw invalid(
          line,
          'data.value',
          `must be a duration in ms from 0 to ${MAX_DURATION_MS}, got ${value}`,
        );
      }
      this.duration(this.step(tags, line), us, value, tags, line);
    } else if (metric === FAILED) {
      if (value !== 0 && value !== 1)
        throw invalid(line, 'data.value', `of ${FAILED} must be 0 or 1, got ${value}`);
      const step = this.step(tags, line);
      step.sawFailedMetric = true;
      if (value === 1) {
        step.failed++;
        this.interval(step, us, line).failed++;
      }
    } else if (metric === 'vus' || metric === 'vus_max') {
      if (value >= 0 && Number.isInteger(value) && (this.maxVus === null || value > this.maxVus)) {
        this.maxVus = value;
      }
    }
  }

  private step(tags: Tags, line: number): StepAcc {
    const s = tags.scenario;
    if (s !== undefined && typeof s !== 'string')
      throw invalid(line, 'data.tags.scenario', 'must be a string');
    const key = (s as string | undefined) ?? null;
    let step = this.steps.get(key);
    if (!step) {
      if (this.steps.size >= MAX_K6_STEPS) {
        throw new ResultFileError(
          'too_large',
          `line ${line}: more than ${MAX_K6_STEPS} scenarios in one file`,
          { line, field: 'data.tags.scenario' },
        );
      }
      step = {
        scenario: key,
        hist: newHistogram(),
        count: 0,
        mean: 0,
        m2: 0,
        minMs: Number.POSITIVE_INFINITY,
        maxMs: Number.NEGATIVE_INFINITY,
        baseUs: Number.NaN,
        firstStartMs: Number.POSITIVE_INFINITY,
        lastEndUs: Number.NEGATIVE_INFINITY,
        failed: 0,
        sawFailedMetric: false,
        unexpected: 0,
        sawExpectedTag: false,
        errorsByCode: new Map(),
        urls: new Set(),
        protos: new Set(),
        intervals: new Map(),
        open: new Set(),
        maxIndex: Number.NEGATIVE_INFINITY,
      };
      this.steps.set(key, step);
    }
    return step;
  }

  private duration(step: StepAcc, endUs: number, ms: number, tags: Tags, line: number): void {
    const recorded = Math.round(ms * 1000);
    step.hist.recordValue(recorded);
    step.count++;
    const d = ms - step.mean;
    step.mean += d / step.count;
    step.m2 += d * (ms - step.mean);
    if (ms < step.minMs) step.minMs = ms;
    if (ms > step.maxMs) step.maxMs = ms;
    if (Number.isNaN(step.baseUs)) step.baseUs = endUs;
    const startMs = (endUs - step.baseUs) / 1000 - ms;
    if (startMs < step.firstStartMs) step.firstStartMs = startMs;
    if (endUs > step.lastEndUs) step.lastEndUs = endUs;

    const expected = tags.expected_response;
    let unexpected = false;
    if (expected !== undefined) {
      if (expected !== 'true' && expected !== 'false') {
        throw invalid(
          line,
          'data.tags.expected_response',
          `must be "true" or "false", got ${JSON.stringify(expected)}`,
        );
      }
      step.sawExpectedTag = true;
      if (expected === 'false') {
        unexpected = true;
        step.unexpected++;
        const status = typeof tags.status === 'string' ? tags.status : 'unknown';
        step.errorsByCode.set(status, (step.errorsByCode.get(status) ?? 0) + 1);
      }
    }
    // Two are enough to know there is more than one.
    if (typeof tags.url === 'string' && step.urls.size < 2) step.urls.add(tags.url);
    if (typeof tags.proto === 'string' && step.protos.size < 2) step.protos.add(tags.proto);

    const acc = this.interval(step, endUs, line);
    acc.hist?.recordValue(recorded);
    acc.count++;
    if (unexpected) acc.unexpected++;
    if (ms < acc.minMs) acc.minMs = ms;
    if (ms > acc.maxMs) acc.maxMs = ms;
  }

  /** The interval a sample timed `us` falls in, opened (again) for recording. */
  private interval(step: StepAcc, us: number, line: number): IntervalAcc {
    const index = Math.floor(us / this.intervalUs);
    let acc = step.intervals.get(index);
    if (!acc) {
      if (this.intervalCount >= MAX_K6_INTERVALS) {
        throw new ResultFileError(
          'too_large',
          `line ${line}: the file spans more than ${MAX_K6_INTERVALS} intervals of ${this.intervalMs} ms`,
          { line, field: 'data.time' },
        );
      }
      this.intervalCount++;
      acc = {
        index,
        count: 0,
        failed: 0,
        unexpected: 0,
        minMs: Number.POSITIVE_INFINITY,
        maxMs: Number.NEGATIVE_INFINITY,
        hist: newHistogram(),
        sealed: null,
      };
      step.intervals.set(index, acc);
      step.open.add(index);
    } else if (!acc.hist) {
      // A sample later than the live window: its interval is opened again.
      acc.hist = decodeHdr(acc.sealed as Uint8Array);
      acc.sealed = null;
      step.open.add(index);
    }
    if (index > step.maxIndex) {
      step.maxIndex = index;
      for (const i of step.open) {
        if (i <= index - this.liveIntervals) this.seal(step, i);
      }
    }
    return acc;
  }

  private seal(step: StepAcc, index: number): void {
    const acc = step.intervals.get(index);
    if (acc?.hist) {
      acc.sealed = encodeHdr(acc.hist);
      acc.hist = null;
    }
    step.open.delete(index);
  }

  /** The decoded steps; refuses a stream with no http_req_duration sample. */
  finish(): K6NdjsonDecoded {
    if (this.steps.size === 0 || [...this.steps.values()].every((s) => s.count === 0)) {
      const seen = [...this.metricsSeen].slice(0, 20).join(', ');
      throw new ResultFileError(
        'no_results',
        `the k6 stream holds no ${DURATION} sample: no request latency to import${seen ? `; metrics found: ${seen}` : ''}`,
      );
    }
    for (const m of this.metricsSeen) if (!COVERED.has(m)) this.unmapped.add(m);
    const counted = [...this.steps.values()].filter((s) => s.count > 0);
    const steps = counted
      .sort((a, b) => a.baseUs + a.firstStartMs * 1000 - (b.baseUs + b.firstStartMs * 1000))
      .map((s) => this.stepOut(s, counted.length));
    const out: K6NdjsonDecoded = { steps, unmapped: this.unmapped.list() };
    if (this.truncated) out.truncated = this.truncated;
    return out;
  }

  private stepOut(s: StepAcc, stepCount: number): K6Step {
    for (const i of [...s.open]) this.seal(s, i);
    const knowsFailed = s.sawFailedMetric;
    const r = emptyResult();
    r.mode =
      (s.scenario !== null ? modeFromLabel(s.scenario) : null) ??
      (s.urls.size === 1 ? schemeOf([...s.urls][0] as string) : null) ??
      'http';
    r.requests = s.count;
    r.errors = knowsFailed ? s.failed : s.sawExpectedTag ? s.unexpected : null;
    r.errorsByCode = Object.fromEntries(s.errorsByCode);
    r.durationMs = (s.lastEndUs - s.baseUs) / 1000 - s.firstStartMs;
    r.achievedRps = r.durationMs > 0 ? s.count / (r.durationMs / 1000) : null;
    r.minMs = s.minMs;
    r.maxMs = s.maxMs;
    r.meanMs = s.mean;
    r.stdDevMs = Math.sqrt(s.m2 / s.count);
    r.percentiles = [...new Set(this.percentiles)]
      .sort((a, b) => a - b)
      .map((p) => hdrPercentile(s.hist, p));
    // Only when the file holds one scenario can the VU count (untagged) be its concurrency.
    if (stepCount === 1 && this.maxVus !== null) r.connections = this.maxVus;
    r.startedAt = new Date(Math.floor(s.baseUs / 1000 + s.firstStartMs)).toISOString();
    if (s.scenario !== null) r.labels.scenario = s.scenario;
    if (s.urls.size === 1) r.labels.url = [...s.urls][0] as string;
    if (s.protos.size === 1) r.labels.proto = [...s.protos][0] as string;
    r.labels.runner = 'k6';

    const intervals = [...s.intervals.values()]
      .filter((a) => a.count > 0)
      .sort((a, b) => a.index - b.index)
      .map(
        (a): K6Interval => ({
          startMs: a.index * this.intervalMs,
          durationMs: this.intervalMs,
          count: a.count,
          errors: knowsFailed ? a.failed : a.unexpected,
          minMs: a.minMs,
          maxMs: a.maxMs,
          hdr: a.sealed as Uint8Array,
        }),
      );
    return {
      scenario: s.scenario,
      result: r,
      startedAtUs: Math.round(s.baseUs + s.firstStartMs * 1000),
      hdr: encodeHdr(s.hist),
      intervals,
    };
  }
}

function invalid(line: number, field: string, what: string): ResultFileError {
  return new ResultFileError('invalid_value', `line ${line}: ${field} ${what}`, { field, line });
}

function schemeOf(url: string): string | null {
  const m = /^([a-z][a-z0-9+.-]*):\/\//i.exec(url);
  return m ? (m[1] as string).toLowerCase() : null;
}

/** Decodes any sequence of lines (an array, a generator over a file's lines). */
export function decodeK6NdjsonLines(
  lines: Iterable<string>,
  options: K6NdjsonOptions = {},
): K6NdjsonDecoded {
  const agg = new K6NdjsonAggregator(options);
  for (const l of lines) agg.line(l);
  return agg.finish();
}

/** Decodes an async stream of text chunks (e.g. a readable stream set to utf8). */
export async function decodeK6NdjsonStream(
  chunks: AsyncIterable<string>,
  options: K6NdjsonOptions = {},
): Promise<K6NdjsonDecoded> {
  const agg = new K6NdjsonAggregator(options);
  let bytes = 0;
  for await (const c of chunks) {
    bytes += Buffer.byteLength(c);
    agg.write(c);
  }
  return agg.end(bytes);
}

/** The lines of a text, one at a time, without splitting the whole text at once. */
export function* linesOf(text: string): Generator<string> {
  let from = 0;
  while (from <= text.length) {
    const nl = text.indexOf('\n', from);
    if (nl === -1) {
      if (from < text.length) yield text.slice(from);
      return;
    }
    yield text.slice(from, nl);
    from = nl + 1;
  }
}

/** Decodes a whole file's text (a last line without its newline may be where it was cut). */
export function decodeK6Ndjson(text: string, options: K6NdjsonOptions = {}): K6NdjsonDecoded {
  const nl = text.lastIndexOf('\n');
  if (nl === text.length - 1) return decodeK6NdjsonLines(linesOf(text), options);
  const agg = new K6NdjsonAggregator(options);
  const whole = text.slice(0, nl + 1);
  for (const l of linesOf(whole)) agg.line(l);
  agg.lastLine(text.slice(nl + 1), Buffer.byteLength(whole) + 1);
  return agg.finish();
}

/** The decoder as the results import runs it: the steps' results, no intervals. */
export function decodeK6NdjsonResults(text: string): { results: LoadResult[]; unmapped: string[] } {
  const { steps, unmapped } = decodeK6Ndjson(text);
  return { results: steps.map((s) => s.result), unmapped };
}
