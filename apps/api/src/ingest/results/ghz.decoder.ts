// ghz's JSON report (`ghz --format json`): a document whose `details` hold every call, raw.
// Follows bojand/ghz at d6acd43d95c09d70fc6234a25b3adcfcf47a5314 (2026-05-01):
// runner/reporter.go Report {name, endReason, date, options, count, total, average, fastest,
// slowest, rps, errorDistribution, statusCodeDistribution, latencyDistribution, histogram,
// details, tags} and ResultDetail {timestamp, latency (ns), error, status (the gRPC code's
// name, "OK" for success)}, kept for at most maxResult (1,000,000, runner/requester.go) calls;
// runner/stats_handler.go gives each call its end time as `timestamp`. A report without
// details (ghz's default summary) has only ghz's own percentiles: method 'reported'.
// A document, so it is read whole (within MESHBENCH_MAX_RESULT_BYTES), not as it arrives.
import type { LoadResult } from '@meshbench/schema';
import { UNSPECIFIED_MODE } from '@meshbench/schema';
import { TickCounts } from '../../domain/tick-counts.ts';
import { formatTimestampUs, parseTimestampUs } from '../timestamps.ts';
import { sampleResult } from './raw-samples.ts';
import { ResultFileError } from './result-file-error.ts';
import { emptyResult, isRecord } from './values.ts';

/** ghz's report: its options, counts and latency distribution (details optional). */
export function isGhzReport(doc: unknown): boolean {
  return (
    isRecord(doc) &&
    isRecord(doc.options) &&
    Array.isArray(doc.latencyDistribution) &&
    isRecord(doc.statusCodeDistribution) &&
    typeof doc.count === 'number'
  );
}

const UNMAPPED = ['options', 'histogram', 'errorDistribution', 'endReason'];

export function decodeGhz(doc: unknown): { results: LoadResult[]; unmapped: string[] } {
  if (!isGhzReport(doc)) {
    throw new ResultFileError(
      'format_mismatch',
      'not a ghz JSON report: expected options, count, statusCodeDistribution and latencyDistribution',
    );
  }
  const report = doc as Record<string, unknown>;
  const options = report.options as Record<string, unknown>;
  const labels: Record<string, string> = { tool: 'ghz' };
  if (typeof options.call === 'string') labels.call = options.call;
  if (typeof report.name === 'string' && report.name) labels.name = report.name;
  const connections =
    typeof options.c === 'number'
      ? options.c
      : typeof options.concurrency === 'number'
        ? options.concurrency
        : null;
  const details = report.details;
  if (!Array.isArray(details) || details.length === 0) {
    // ghz's own numbers: nanoseconds, its percentiles as it computed them.
    const ms = (v: unknown) => (typeof v === 'number' && v >= 0 ? v / 1e6 : null);
    const result: LoadResult = {
      ...emptyResult(),
      mode: UNSPECIFIED_MODE,
      connections,
      requests: report.count as number,
      durationMs: ms(report.total),
      achievedRps: typeof report.rps === 'number' ? report.rps : null,
      minMs: ms(report.fastest),
      meanMs: ms(report.average),
      maxMs: ms(report.slowest),
      percentiles: (report.latencyDistribution as unknown[]).flatMap((d) =>
        isRecord(d) && typeof d.percentage === 'number' && ms(d.latency) !== null
          ? [{ p: d.percentage, ms: ms(d.latency) as number }]
          : [],
      ),
      labels,
    };
    return { results: [result], unmapped: UNMAPPED };
  }
  const counts = new TickCounts(0.001, { below: 0, above: 1 });
  let firstStartUs = Number.POSITIVE_INFINITY;
  let lastEndUs = Number.NEGATIVE_INFINITY;
  let errors = 0;
  const errorsByCode: Record<string, number> = {};
  details.forEach((d, i) => {
    const field = `details.${i}`;
    const bad = (what: string) =>
      new ResultFileError('invalid_value', `${field}: ${what}`, { field });
    if (!isRecord(d)) throw bad('is not an object');
    const ns = d.latency;
    if (!Number.isSafeInteger(ns) || (ns as number) < 0)
      throw bad('latency must be whole nanoseconds >= 0');
    const endUs = typeof d.timestamp === 'string' ? parseTimestampUs(d.timestamp) : null;
    if (endUs === null) throw bad('timestamp must be an RFC 3339 timestamp');
    counts.add(Math.floor((ns as number) / 1000));
    const startUs = endUs - Math.floor((ns as number) / 1000);
    if (startUs < firstStartUs) firstStartUs = startUs;
    if (endUs > lastEndUs) lastEndUs = endUs;
    const status = typeof d.status === 'string' && d.status ? d.status : 'Unknown';
    if (status !== 'OK' || (typeof d.error === 'string' && d.error !== '')) {
      errors++;
      errorsByCode[status] = (errorsByCode[status] ?? 0) + 1;
    }
  });
  // A report may count more calls than it details (ghz's web test report: 200 and 193): the
  // point is of the details, the calls ghz counted kept beside them.
  if (typeof report.count === 'number' && report.count !== details.length) {
    labels.ghzCount = String(report.count);
  }
  const result = sampleResult(counts, {
    mode: UNSPECIFIED_MODE,
    connections,
    // From the first call's start (its end less its latency) to the last one's end.
    durationMs: (lastEndUs - firstStartUs) / 1000,
    errors,
    errorsByCode,
    labels,
    startedAt: formatTimestampUs(firstStartUs),
  });
  return { results: [result], unmapped: UNMAPPED };
}
