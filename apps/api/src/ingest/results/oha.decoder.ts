// oha's JSON summary (`oha --output-format json`): a document of oha's own numbers, no
// samples. Follows hatoo/oha at b8cd846806b4ddefdd447f5f9f95a66ac22146a4 (2026-07-11):
// src/printer.rs print_json {summary {successRate, total, slowest, fastest, average,
// requestsPerSec, totalData, sizePerRequest, sizePerSec}, metrics (from 635c080, 2026-05),
// responseTimeHistogram, latencyPercentiles {"p10".."p99.99"}, firstByte..., rps, details,
// statusCodeDistribution {"200": n}, errorDistribution {"<error>": n}} with times in seconds
// (f64; NaN written as null by serde_json); schema.json (since 013586a, 2024-05).
// src/result_data.rs: percentiles over the successful requests' durations, sorted, value at
// index floor(p / 100 * n) (0-based; not the nearest rank), so they are kept as oha's own
// ('reported'); requests = successes (statusCodeDistribution, any HTTP status) + client errors
// (errorDistribution); success_rate leaves out "aborted due to deadline" (the -z end), and so
// do requests and errors here.
import type { LoadResult } from '@meshbench/schema';
import { UNSPECIFIED_MODE } from '@meshbench/schema';
import { ResultFileError } from './result-file-error.ts';
import { emptyResult, isRecord } from './values.ts';

/** oha's ClientError::Deadline, as written in errorDistribution (src/client.rs). */
const DEADLINE = 'aborted due to deadline';

/** oha's JSON: summary with successRate, latencyPercentiles and both distributions. */
export function isOhaReport(doc: unknown): boolean {
  return (
    isRecord(doc) &&
    isRecord(doc.summary) &&
    'successRate' in doc.summary &&
    isRecord(doc.latencyPercentiles) &&
    isRecord(doc.statusCodeDistribution) &&
    isRecord(doc.errorDistribution)
  );
}

const UNMAPPED = [
  'summary.totalData',
  'summary.sizePerRequest',
  'summary.sizePerSec',
  'responseTimeHistogram',
  'firstByteHistogram',
  'firstBytePercentiles',
  'rps',
  'details',
];

function counts(map: Record<string, unknown>, field: string): Array<[string, number]> {
  return Object.entries(map).map(([k, v]) => {
    if (!Number.isSafeInteger(v) || (v as number) < 0) {
      throw new ResultFileError('invalid_value', `${field}.${k}: must be a count >= 0`, {
        field: `${field}.${k}`,
      });
    }
    return [k, v as number];
  });
}

export function decodeOha(doc: unknown): { results: LoadResult[]; unmapped: string[] } {
  if (!isOhaReport(doc)) {
    throw new ResultFileError(
      'format_mismatch',
      'not an oha JSON summary: expected summary, latencyPercentiles, statusCodeDistribution and errorDistribution',
    );
  }
  const report = doc as Record<string, Record<string, unknown>>;
  const summary = report.summary as Record<string, unknown>;
  const ok = counts(
    report.statusCodeDistribution as Record<string, unknown>,
    'statusCodeDistribution',
  );
  const failed = counts(
    report.errorDistribution as Record<string, unknown>,
    'errorDistribution',
  ).filter(([k]) => k !== DEADLINE);
  const successes = ok.reduce((s, [, n]) => s + n, 0);
  const errors = failed.reduce((s, [, n]) => s + n, 0);
  // Seconds to ms; null (NaN) or absent is no value.
  const ms = (v: unknown, field: string) => {
    if (v === null || v === undefined) return null;
    if (typeof v !== 'number' || !(v >= 0)) {
      throw new ResultFileError('invalid_value', `${field}: must be seconds >= 0`, { field });
    }
    return v * 1000;
  };
  const percentiles = Object.entries(report.latencyPercentiles as Record<string, unknown>).flatMap(
    ([k, v]) => {
      const p = /^p(\d+(?:\.\d+)?)$/.exec(k);
      if (!p) {
        throw new ResultFileError('invalid_value', `latencyPercentiles.${k}: not a pNN key`, {
          field: `latencyPercentiles.${k}`,
        });
      }
      const value = ms(v, `latencyPercentiles.${k}`);
      return value === null ? [] : [{ p: Number(p[1]), ms: value }];
    },
  );
  const result: LoadResult = {
    ...emptyResult(),
    mode: UNSPECIFIED_MODE,
    requests: successes + errors,
    errors,
    errorsByCode: Object.fromEntries(failed.map(([k, n]) => [k.slice(0, 100), n])),
    durationMs: ms(summary.total, 'summary.total'),
    achievedRps: typeof summary.requestsPerSec === 'number' ? summary.requestsPerSec : null,
    // Over the successful requests, as oha's latency_stat.
    minMs: ms(summary.fastest, 'summary.fastest'),
    meanMs: ms(summary.average, 'summary.average'),
    maxMs: ms(summary.slowest, 'summary.slowest'),
    percentiles: percentiles.sort((a, b) => a.p - b.p),
    labels: { tool: 'oha' },
  };
  return { results: [result], unmapped: UNMAPPED };
}
