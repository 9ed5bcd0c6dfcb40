// Fortio's JSON result (HTTP, gRPC, TCP, UDP runs, and Nighthawk's Fortio-compatible output)
// to one load result: durations in seconds become milliseconds, nothing is re-estimated.
// Follows fortio/fortio at 45e18710810d864a615618087228996a0a824b2f (v1.75.2+6):
// periodic/periodic.go RunnerResults (RequestedQPS a string, "max" allowed; ActualDuration a
// Go time.Duration in ns; ErrorsDurationHistogram), stats/stats.go HistogramData, Bucket
// and Percentile (seconds; buckets [Start, End] from Min to Max, Percent cumulative; Fortio's
// own percentiles interpolate inside a bucket: CalcPercentile), fhttp/httprunner.go RetCodes
// map[int]int64 and fhttp/http_client.go codeIsOK, fgrpc/grpcrunner.go, tcprunner/ and
// udprunner/ RetCodes by status name. Checked on a real Fortio 0.8.1 file (envoyproxy/
// nighthawk fortio-data/golden.json) and on Nighthawk's Fortio output (output_formatter
// *.fortio*.gold at 2a047ec9, counts as strings).
import type { LoadResult } from '@meshbench/schema';
import { ResultFileError } from './result-file-error.ts';
import {
  emptyResult,
  goDurationSeconds,
  isRecord,
  type Json,
  modeFromLabel,
  nsToMs,
  orderPercentiles,
  rfc3339,
  secondsToMs,
  toCount,
  toNonNegative,
  toNumber,
  Unmapped,
} from './values.ts';

/** Where a Fortio object sits: `at` is its exact path (for errors), `name` its path in the unmapped list. */
export interface FortioContext {
  at: string;
  name: string;
  unmapped: Unmapped;
}

export function decodeFortio(doc: unknown): { results: LoadResult[]; unmapped: string[] } {
  if (!isRecord(doc) || !isRecord(doc.DurationHistogram)) {
    throw new ResultFileError(
      'format_mismatch',
      'not a Fortio result: expected a JSON object with a "DurationHistogram" object',
      { field: 'DurationHistogram' },
    );
  }
  const unmapped = new Unmapped();
  const result = fortioToResult(doc, { at: '', name: '', unmapped });
  return { results: [result], unmapped: unmapped.list() };
}

const USED = [
  'Labels',
  'RunType',
  'StartTime',
  'RequestedQPS',
  'RequestedDuration',
  'ActualQPS',
  'ActualDuration',
  'NumThreads',
  'Version',
  'URL',
  'Destination',
  'DurationHistogram',
  'ErrorsDurationHistogram',
  'RetCodes',
];

// What Fortio itself counts as success: HTTP 2xx and 418 (fhttp/http_client.go codeIsOK,
// "StatusTeapot" is OK so that fortio's own echo server can be asked for it), SERVING for
// gRPC health and ping (fgrpc/grpcrunner.go), OK for TCP and UDP (tcprunner, udprunner).
const SUCCESS = new Set(['OK', 'SERVING', '418']);
const isSuccess = (code: string) => SUCCESS.has(code) || /^2\d\d$/.test(code);

export function fortioToResult(o: Json, ctx: FortioContext): LoadResult {
  const field = (name: string) => ({ field: `${ctx.at}${name}` });
  const r = emptyResult();

  if (typeof o.Labels === 'string' && o.Labels.trim() !== '') {
    r.labels.label = o.Labels;
    r.mode = modeFromLabel(o.Labels) ?? r.mode;
  }
  for (const [key, label] of [
    ['RunType', 'runType'],
    ['Version', 'runnerVersion'],
    ['URL', 'url'],
    ['Destination', 'destination'],
    ['RequestedDuration', 'requestedDuration'],
  ] as const) {
    const v = o[key];
    if (typeof v === 'string' && v !== '') r.labels[label] = v;
  }

  if (o.StartTime !== undefined) {
    r.startedAt = rfc3339(o.StartTime, `${ctx.name}StartTime`);
    if (r.startedAt === null) ctx.unmapped.add(`${ctx.name}StartTime`);
  }

  if (typeof o.RequestedQPS === 'string' && o.RequestedQPS.trim() === 'max') {
    r.labels.requestedQps = 'max';
  } else {
    r.targetRps = toNonNegative(o.RequestedQPS, field('RequestedQPS'));
  }
  r.achievedRps = toNonNegative(o.ActualQPS, field('ActualQPS'));
  r.connections = toCount(o.NumThreads, field('NumThreads'));

  const actual = toNonNegative(o.ActualDuration, field('ActualDuration'));
  if (actual !== null) {
    // Fortio writes a Go time.Duration (nanoseconds). Nighthawk's early Fortio converter
    // wrote seconds ("ActualDuration": 5 next to "RequestedDuration": "5s"): a value far
    // too small for nanoseconds that matches the requested duration in seconds is seconds.
    const requested = goDurationSeconds(o.RequestedDuration);
    const inSeconds =
      actual > 0 &&
      actual < 1e6 &&
      requested !== null &&
      actual >= requested / 2 &&
      actual <= requested * 2;
    r.durationMs = inSeconds ? secondsToMs(actual) : nsToMs(actual);
  }

  const h = o.DurationHistogram;
  if (isRecord(h)) {
    const at = (name: string) => field(`DurationHistogram.${name}`);
    r.requests = toCount(h.Count, at('Count'));
    r.minMs = ms(h.Min, at('Min'));
    r.maxMs = ms(h.Max, at('Max'));
    r.meanMs = ms(h.Avg, at('Avg'));
    r.stdDevMs = ms(h.StdDev, at('StdDev'));
    r.histogram = buckets(h.Data, `${ctx.at}DurationHistogram.Data`);
    r.percentiles = percentiles(h.Percentiles, `${ctx.at}DurationHistogram.Percentiles`);
    ctx.unmapped.rest(
      h,
      ['Count', 'Min', 'Max', 'Avg', 'StdDev', 'Data', 'Percentiles'],
      `${ctx.name}DurationHistogram.`,
    );
  }

  let fromCodes = 0;
  if (isRecord(o.RetCodes)) {
    for (const [code, n] of Object.entries(o.RetCodes)) {
      const c = toCount(n, field(`RetCodes.${code}`));
      if (c === null || c === 0 || isSuccess(code)) continue;
      r.errorsByCode[code] = c;
      fromCodes += c;
    }
    r.errors = fromCodes;
  }
  const e = o.ErrorsDurationHistogram;
  if (isRecord(e)) {
    // Fortio's own count of calls that failed, whatever their code.
    const counted = toCount(e.Count, field('ErrorsDurationHistogram.Count'));
    if (counted !== null) r.errors = counted;
    ctx.unmapped.rest(e, ['Count'], `${ctx.name}ErrorsDurationHistogram.`);
  }

  ctx.unmapped.rest(o, USED, ctx.name);
  return r;
}

function ms(v: unknown, where: { field: string }): number | null {
  const s = toNonNegative(v, where);
  return s === null ? null : secondsToMs(s);
}

/**
 * Buckets one histogram may hold: Fortio's has at most one per histogramBucketValues entry
 * plus the overflow (stats/stats.go, under 100); Nighthawk's conversions about as many.
 */
export const MAX_HISTOGRAM_BUCKETS = 1000;

function buckets(data: unknown, at: string): LoadResult['histogram'] {
  if (data === null || data === undefined) return null;
  if (!Array.isArray(data)) {
    throw new ResultFileError('invalid_value', `${at} must be an array`, { field: at });
  }
  if (data.length > MAX_HISTOGRAM_BUCKETS) {
    throw new ResultFileError(
      'too_large',
      `${at} has ${data.length} buckets, more than the ${MAX_HISTOGRAM_BUCKETS} a histogram may have (Fortio writes fewer than 100)`,
      { field: at },
    );
  }
  return data.map((b, i) => {
    const where = (k: string) => ({ field: `${at}[${i}].${k}` });
    if (!isRecord(b)) {
      throw new ResultFileError('invalid_value', `${at}[${i}] must be an object`, {
        field: `${at}[${i}]`,
      });
    }
    const from = toNumber(b.Start, where('Start'));
    const to = toNumber(b.End, where('End'));
    const count = toCount(b.Count, where('Count'));
    if (from === null || to === null || count === null) {
      throw new ResultFileError('invalid_value', `${at}[${i}] needs Start, End and Count`, {
        field: `${at}[${i}]`,
      });
    }
    return { fromMs: secondsToMs(from), toMs: secondsToMs(to), count };
  });
}

function percentiles(list: unknown, at: string): LoadResult['percentiles'] {
  if (list === null || list === undefined) return [];
  if (!Array.isArray(list)) {
    throw new ResultFileError('invalid_value', `${at} must be an array`, { field: at });
  }
  const out: LoadResult['percentiles'] = [];
  list.forEach((q, i) => {
    if (!isRecord(q)) return;
    const p = toNumber(q.Percentile, { field: `${at}[${i}].Percentile` });
    const v = toNonNegative(q.Value, { field: `${at}[${i}].Value` });
    if (p !== null && v !== null) out.push({ p, ms: secondsToMs(v) });
  });
  return orderPercentiles(out);
}
