// Nighthawk's JSON (or YAML) output to one load result: the "global" result's request
// latency statistic and benchmark counters, durations like "0.002s" in milliseconds.
// Follows envoyproxy/nighthawk api/client/output.proto (Output {timestamp, options, results,
// version}; Result {name, statistics, counters, execution_duration, execution_start};
// Statistic {count, id, mean|raw_mean, pstdev, percentiles {duration|raw_value, percentile
// 0..1, count}, min, max}; Counter {name, value uint64}) as written with proto field names
// (snake_case) by the JSON and YAML output formatters: test/test_data/output_formatter.*.gold
// at 2a047ec95760075fc17c77cd023c790345e07c9c, and real outputs test_data/*sample*.json
// (2019-2020, without execution_start or version). The proto read at 0d69b89b has no
// execution_start; later ones do, and both are read.
import type { LoadResult } from '@meshbench/schema';
import { ResultFileError } from './result-file-error.ts';
import {
  emptyResult,
  isRecord,
  type Json,
  modeFromLabel,
  orderPercentiles,
  protoDurationMs,
  rfc3339,
  shift,
  toCount,
  toNonNegative,
  toNumber,
  Unmapped,
} from './values.ts';

/** The statistic Nighthawk records end-to-end request latency in. */
const LATENCY_STAT = 'benchmark_http_client.request_to_response';

// Counters of requests that failed, by Nighthawk's own names; 1xx-3xx are not failures.
const FAILURE_COUNTERS: Record<string, string> = {
  'benchmark.http_4xx': '4xx',
  'benchmark.http_5xx': '5xx',
  'benchmark.http_xxx': 'xxx',
  'benchmark.pool_overflow': 'pool_overflow',
  'benchmark.pool_connection_failure': 'pool_connection_failure',
  'benchmark.stream_resets': 'stream_resets',
};
const SUCCESS_COUNTERS = new Set([
  'benchmark.http_1xx',
  'benchmark.http_2xx',
  'benchmark.http_3xx',
]);

const USED_OPTIONS = [
  'connections',
  'requests_per_second',
  'uri',
  'concurrency',
  'labels',
  'duration',
];

export function decodeNighthawk(doc: unknown): { results: LoadResult[]; unmapped: string[] } {
  if (
    !isRecord(doc) ||
    !Array.isArray(doc.results) ||
    !doc.results.every(
      (r) => isRecord(r) && (Array.isArray(r.statistics) || Array.isArray(r.counters)),
    )
  ) {
    throw new ResultFileError(
      'format_mismatch',
      'not a Nighthawk output: expected an object with "results", each with "statistics" or "counters"',
      { field: 'results' },
    );
  }
  const unmapped = new Unmapped();
  const results = doc.results as Json[];
  let index = results.findIndex((r) => r.name === 'global');
  if (index === -1 && results.length === 1) index = 0;
  if (index === -1) {
    if (results.length === 0) return { results: [], unmapped: [] };
    throw new ResultFileError(
      'invalid_value',
      `Nighthawk output has ${results.length} per-worker results and no "global" one to import`,
      { field: 'results' },
    );
  }
  results.forEach((w, i) => {
    if (i !== index) unmapped.add(`results[${String(w.name ?? i)}]`);
  });

  const r = emptyResult();
  const options = isRecord(doc.options) ? doc.options : {};
  readOptions(options, r);
  unmapped.rest(options, USED_OPTIONS, 'options.');

  const v = isRecord(doc.version) && isRecord(doc.version.version) ? doc.version.version : null;
  if (v && v.major_number !== undefined) {
    r.labels.runnerVersion = `${v.major_number}.${v.minor_number ?? 0}.${v.patch ?? 0}`;
  }
  unmapped.rest(doc, ['options', 'results', 'version', 'timestamp']);

  const g = results[index] as Json;
  const at = `results[${index}]`;
  r.durationMs = protoDurationMs(g.execution_duration, { field: `${at}.execution_duration` });
  // Older Nighthawk has no execution_start; its top-level timestamp is taken as the run
  // starts (its own Fortio converter writes it as StartTime).
  const start = g.execution_start ?? doc.timestamp;
  if (start !== undefined) {
    r.startedAt = rfc3339(start, 'start');
    if (r.startedAt === null)
      unmapped.add(g.execution_start ? 'results[global].execution_start' : 'timestamp');
  }
  readStatistics(g.statistics, `${at}.statistics`, r, unmapped);
  readCounters(g.counters, `${at}.counters`, r, unmapped);
  unmapped.rest(
    g,
    ['name', 'statistics', 'counters', 'execution_duration', 'execution_start'],
    'results[global].',
  );
  return { results: [r], unmapped: unmapped.list() };
}

function readOptions(o: Json, r: LoadResult): void {
  r.connections = toCount(o.connections, { field: 'options.connections' });
  r.targetRps = toNonNegative(o.requests_per_second, { field: 'options.requests_per_second' });
  if (typeof o.uri === 'string' && o.uri !== '') r.labels.url = o.uri;
  if (typeof o.concurrency === 'string' && o.concurrency !== '')
    r.labels.concurrency = o.concurrency;
  if (typeof o.duration === 'string' && o.duration !== '') r.labels.requestedDuration = o.duration;
  if (Array.isArray(o.labels) && o.labels.length > 0) {
    r.labels.label = o.labels.map(String).join(' ');
    r.mode = modeFromLabel(r.labels.label) ?? r.mode;
  }
}

function readStatistics(list: unknown, at: string, r: LoadResult, unmapped: Unmapped): void {
  if (!Array.isArray(list)) return;
  list.forEach((s, i) => {
    if (!isRecord(s)) return;
    const where = (k: string) => ({ field: `${at}[${i}].${k}` });
    const id = typeof s.id === 'string' ? s.id : '';
    if (id !== LATENCY_STAT) {
      const samples = toCount(s.count, where('count'));
      if (samples !== null && samples > 0) unmapped.add(`statistics[${id}]`);
      return;
    }
    r.requests = toCount(s.count, where('count'));
    r.meanMs = protoDurationMs(s.mean, where('mean'));
    r.stdDevMs = protoDurationMs(s.pstdev, where('pstdev'));
    r.minMs = protoDurationMs(s.min, where('min'));
    r.maxMs = protoDurationMs(s.max, where('max'));
    const ps: LoadResult['percentiles'] = [];
    if (Array.isArray(s.percentiles)) {
      s.percentiles.forEach((q, j) => {
        if (!isRecord(q)) return;
        const pw = (k: string) => ({ field: `${at}[${i}].percentiles[${j}].${k}` });
        const p = toNumber(q.percentile, pw('percentile'));
        const ms = protoDurationMs(q.duration, pw('duration'));
        if (p !== null && ms !== null) ps.push({ p: shift(p, 2), ms });
      });
    }
    r.percentiles = orderPercentiles(ps);
  });
}

function readCounters(list: unknown, at: string, r: LoadResult, unmapped: Unmapped): void {
  if (!Array.isArray(list)) return;
  let errors = 0;
  let benchmark = false;
  list.forEach((c, i) => {
    if (!isRecord(c) || typeof c.name !== 'string') return;
    if (c.name.startsWith('benchmark.')) benchmark = true;
    const value = toCount(c.value, { field: `${at}[${i}].value` });
    const kind = FAILURE_COUNTERS[c.name];
    if (kind !== undefined) {
      if (value) {
        r.errorsByCode[kind] = value;
        errors += value;
      }
    } else if (!SUCCESS_COUNTERS.has(c.name)) {
      unmapped.add(`counters[${c.name}]`);
    }
  });
  // Nighthawk leaves out counters that stayed at zero: with its benchmark counters present,
  // no failure counter means none failed.
  if (benchmark) r.errors = errors;
}
