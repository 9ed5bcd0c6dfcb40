// Locust's own files to load results: the --csv files (_stats.csv, _stats_history.csv,
// _failures.csv, _exceptions.csv; before 0.14 _requests.csv and _distribution.csv) in every
// header generation, and the --json / --json-file output (its response-time bucket counts,
// from which the percentiles are recomputed at the nearest rank). Columns are matched by name.
// Follows locustio/locust at 407343d0f5ab84a32f41f6f9a7c991188d10a55a, locust/stats.py:
// StatsCSV.requests_csv_columns / failures_columns / exceptions_columns and
// StatsCSVFileWriter.stats_history_csv_columns, _stats_history_data_rows (its percentiles and
// Requests/s are of a trailing ~10 s window with --csv-full-history, its Total* columns are
// cumulative), StatsEntry.serialize / StatsEntryDict and print_stats_json / save_stats_json
// (a list of entries, no total); the older generations at tags v0.8.1 and 0.13.0 (quoted
// "Method","Name","# requests"..., "%i" integers, the total named "Total"), 0.14.0 ("Type",
// "# requests", "Requests Failed/s", inline percentiles, history "Type","Name","Timestamp"),
// 1.0 ("Request Count", "Failures/s", history "Timestamp","User Count"...) and 1.2 (csv.writer:
// unquoted, floats as Python writes them). Rounding and ranks: locust-buckets.ts.
import type { LoadResult } from '@meshbench/schema';
import {
  bucketBins,
  type LocustRounding,
  percentilesFromBins,
  reportedMedian,
  reportedPercentile,
} from './locust-buckets.ts';
import { ResultFileError } from './result-file-error.ts';
import {
  emptyResult,
  isRecord,
  MAX_PERCENTILES_PER_RESULT,
  orderPercentiles,
  toCount,
  toNonNegative,
  Unmapped,
} from './values.ts';

type Decoded = { results: LoadResult[]; unmapped: string[] };

/** What each Locust file is, in the words of its name. */
export type LocustCsvKind =
  | 'stats'
  | 'requests'
  | 'distribution'
  | 'stats_history'
  | 'failures'
  | 'exceptions';

/** The files this decoder reads, for messages. */
export const LOCUST_FILES =
  'Locust --csv files (_stats.csv, _stats_history.csv, _failures.csv, _exceptions.csv; before 0.14 _requests.csv and _distribution.csv) or its --json / --json-file output';

/**
 * What the upload may say of a Locust file's points, which Locust's files do not: the mode, the
 * users (`connections`; a --json report does not hold them) and a target rate.
 */
export const LOCUST_STEP_KEYS = ['mode', 'connections', 'targetRps'] as const;

/** A point with what the upload says of it, where the file itself said nothing. */
export function withLocustStep(
  r: LoadResult,
  step: {
    mode?: string | undefined;
    connections?: number | undefined;
    targetRps?: number | undefined;
  },
): LoadResult {
  return {
    ...r,
    mode: step.mode ?? r.mode,
    connections: r.connections ?? step.connections ?? null,
    targetRps: r.targetRps ?? step.targetRps ?? null,
  };
}

/** The percentiles Locust reports (stats.py PERCENTILES_TO_REPORT), recomputed from buckets. */
export const LOCUST_PERCENTILES = [50, 66, 75, 80, 90, 95, 98, 99, 99.9, 99.99, 100] as const;

const PCT = /^(\d+(?:\.\d+)?)%?$/;

/** The kind of Locust CSV a header line names, or null. */
export function locustCsvKind(firstLine: string): LocustCsvKind | null {
  return locustCsvKindOf(splitRecord(firstLine));
}

function locustCsvKindOf(headerCells: string[]): LocustCsvKind | null {
  const first = headerCells.map((c) => c.trim());
  const cells = new Set(first);
  const has = (...names: string[]) => names.every((n) => cells.has(n));
  if (has('Count', 'Message', 'Traceback', 'Nodes')) return 'exceptions';
  if (has('Method', 'Name', 'Error', 'Occurrences')) return 'failures';
  if (has('Timestamp', 'Name') && (cells.has('Total Request Count') || cells.has('# requests')))
    return 'stats_history';
  if (has('Type', 'Name') && (cells.has('Request Count') || cells.has('# requests')))
    return 'stats';
  if (has('Method', 'Name', '# requests', 'Median response time')) return 'requests';
  if (first[0] === 'Name' && first[1] === '# requests' && first.slice(2).every((c) => PCT.test(c)))
    return 'distribution';
  return null;
}

/** An HTML page Locust wrote (--html): percentiles only as Locust computed them, no buckets. */
export function looksLikeLocustHtml(head: string): boolean {
  return /<html/i.test(head) && /locust/i.test(head);
}

/** Whether a parsed JSON document is Locust's --json output: a list of stats entries. */
export function isLocustJson(doc: unknown): boolean {
  return (
    Array.isArray(doc) &&
    doc.length > 0 &&
    doc.every(
      (e) =>
        isRecord(e) &&
        typeof e.name === 'string' &&
        'num_requests' in e &&
        isRecord(e.response_times) &&
        'num_failures' in e,
    )
  );
}

// --- CSV ---------------------------------------------------------------------------------

/** One CSV record (RFC 4180, as Python's csv module writes it) from a line. */
function splitRecord(line: string): string[] {
  try {
    return parseCsv(line)[0]?.cells ?? [];
  } catch {
    return []; // an unclosed quote: no header of ours
  }
}

/**
 * Every record of a CSV text with the line it starts on; quoted fields may hold commas,
 * quotes ("") and line breaks (a traceback in _exceptions.csv). Linear in the text.
 */
export function parseCsv(text: string): Array<{ cells: string[]; line: number }> {
  const records: Array<{ cells: string[]; line: number }> = [];
  let cells: string[] = [];
  let cell = '';
  let quoted = false;
  let line = 1;
  let start = 1;
  let any = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i] as string;
    if (quoted) {
      if (c === '"') {
        if (text[i + 1] === '"') {
          cell += '"';
          i++;
        } else quoted = false;
      } else {
        if (c === '\n') line++;
        cell += c;
      }
      continue;
    }
    if (c === '"') {
      quoted = true;
      any = true;
    } else if (c === ',') {
      cells.push(cell);
      cell = '';
      any = true;
    } else if (c === '\n' || c === '\r') {
      if (c === '\r' && text[i + 1] === '\n') i++;
      if (any || cell !== '') {
        cells.push(cell);
        records.push({ cells, line: start });
      }
      cells = [];
      cell = '';
      any = false;
      line++;
      start = line;
    } else {
      cell += c;
      any = true;
    }
  }
  if (quoted) {
    throw new ResultFileError('truncated', `a quoted field opened on line ${start} never closes`, {
      line: start,
    });
  }
  if (any || cell !== '') {
    cells.push(cell);
    records.push({ cells, line: start });
  }
  return records;
}

/** A row's cells by header name, numbers read strictly. */
class Row {
  constructor(
    private readonly header: Map<string, number>,
    private readonly cells: string[],
    readonly line: number,
  ) {}
  text(...names: string[]): string | null {
    for (const n of names) {
      const i = this.header.get(n);
      if (i !== undefined) return (this.cells[i] ?? '').trim();
    }
    return null;
  }
  number(...names: string[]): number | null {
    const v = this.text(...names);
    // Locust writes "N/A" for a percentile of an entry with no requests.
    if (v === null || v === '' || v === 'N/A') return null;
    return toNonNegative(v, { field: names[0] as string, line: this.line });
  }
  count(...names: string[]): number | null {
    const v = this.text(...names);
    if (v === null || v === '') return null;
    return toCount(v, { field: names[0] as string, line: this.line });
  }
}

const REQUESTS = ['Request Count', '# requests'];
const FAILURES = ['Failure Count', '# failures'];
const MEDIAN = ['Median Response Time', 'Median response time'];
const AVERAGE = ['Average Response Time', 'Average response time'];
const MIN = ['Min Response Time', 'Min response time'];
const MAX = ['Max Response Time', 'Max response time'];
const RPS = ['Requests/s'];
// The total row: "Total" up to 0.13 ("None Total" in _distribution.csv), then "Aggregated".
const TOTAL_NAMES = new Set(['Aggregated', 'Total', 'None Total']);

export function decodeLocustCsv(text: string): Decoded {
  const records = parseCsv(text);
  const head = records[0];
  const kind = head ? locustCsvKindOf(head.cells) : null;
  if (!head || kind === null) {
    throw new ResultFileError(
      'format_mismatch',
      `not a Locust file: expected ${LOCUST_FILES}; the first line names none of their header columns`,
      { line: 1 },
    );
  }
  const header = new Map<string, number>();
  head.cells.forEach((c, i) => {
    if (!header.has(c.trim())) header.set(c.trim(), i);
  });
  const rows = records.slice(1).map((r) => new Row(header, r.cells, r.line));
  const unmapped = new Unmapped();
  // Integers printed with "%i" (Locust < 1.2 wrote its CSV by hand) are truncated: a min or
  // max m stands for [m, m + 1); csv.writer (1.2 on) writes the floats as they are.
  const quotedHeader = /^\s*"/.test(text);
  // Up to 0.13 (_requests.csv, _distribution.csv) values under 100 ms were not rounded.
  const rounding: LocustRounding =
    kind === 'requests' || kind === 'distribution' ? 'legacy' : 'round';
  const ctx = { header, unmapped, rounding, truncatedInts: quotedHeader };
  switch (kind) {
    case 'stats':
    case 'requests':
    case 'distribution':
      return { results: rows.map((row) => statsRow(row, kind, ctx)), unmapped: unmapped.list() };
    case 'stats_history':
      return { results: historyResults(rows, ctx), unmapped: unmapped.list() };
    case 'failures':
      return { results: failureResults(rows), unmapped: unmapped.list() };
    case 'exceptions':
      return { results: exceptionResults(rows), unmapped: unmapped.list() };
  }
}

interface CsvContext {
  header: Map<string, number>;
  unmapped: Unmapped;
  rounding: LocustRounding;
  truncatedInts: boolean;
}

function labelsOf(row: Row, file: string): Record<string, string> {
  const labels: Record<string, string> = { source: `locust ${file}` };
  const name = row.text('Name');
  let method = row.text('Type', 'Method');
  // 0.14 wrote the total's method None as "None"; the rest write it empty.
  if (method === 'None' || method === '') method = null;
  if (name !== null && name !== '') labels.name = name;
  if (method !== null) labels.method = method;
  if (name !== null && TOTAL_NAMES.has(name) && method === null) labels.aggregated = 'true';
  return labels;
}

/** A _stats.csv (or pre-0.14 _requests.csv / _distribution.csv) row: the whole run so far. */
function statsRow(row: Row, kind: LocustCsvKind, ctx: CsvContext): LoadResult {
  const r = emptyResult();
  r.labels = labelsOf(row, `_${kind}.csv`);
  r.requests = row.count(...REQUESTS);
  r.errors = row.count(...FAILURES);
  r.meanMs = row.number(...AVERAGE);
  r.minMs = row.number(...MIN);
  r.maxMs = row.number(...MAX);
  r.achievedRps = row.number(...RPS);
  if (r.requests === 0) {
    // Locust prints 0 for the extremes of an entry with no requests.
    r.minMs = null;
    r.maxMs = null;
    r.meanMs = null;
  }
  const maxTop = r.maxMs === null ? null : r.maxMs + (ctx.truncatedInts ? 1 : 0);
  const percentiles = [];
  const median = row.number(...MEDIAN);
  if (median !== null && (r.requests ?? 0) > 0) {
    percentiles.push(reportedMedian(median, ctx.rounding, r.minMs, maxTop));
  }
  for (const [name] of ctx.header) {
    const m = PCT.exec(name);
    if (!m || r.requests === null || r.requests === 0) continue;
    const k = row.number(name);
    if (k === null) continue;
    const p = reportedPercentile(m[1] as string, k, r.requests, ctx.rounding, r.minMs, maxTop);
    if (p) percentiles.push(p);
  }
  r.percentiles = orderPercentiles(percentiles) as LoadResult['percentiles'];
  for (const name of ['Average Content Size', 'Failures/s', 'Requests Failed/s'])
    if (ctx.header.has(name)) ctx.unmapped.add(name);
  return r;
}

/**
 * _stats_history.csv: one row a second per entry. Its Requests/s, Failures/s and percentile
 * columns are of a trailing window (about the last 10 s, or the whole run so far without
 * --csv-full-history since 2.2), not of the interval between rows, so they are not stored as
 * interval figures; each entry's last row gives its cumulative totals.
 */
function historyResults(rows: Row[], ctx: CsvContext): LoadResult[] {
  const last = new Map<string, Row>();
  const first = new Map<string, Row>();
  const users = new Map<string, Set<string>>();
  for (const row of rows) {
    const key = `${row.text('Type', 'Method') ?? ''}\u0000${row.text('Name') ?? ''}`;
    if (!first.has(key)) first.set(key, row);
    last.set(key, row);
    const u = row.text('User Count');
    // Before the first user starts and after the last stops Locust writes 0 users.
    if (u !== null && u !== '0') users.set(key, (users.get(key) ?? new Set()).add(u));
  }
  for (const name of ['Requests/s', 'Failures/s', 'Requests Failed/s'])
    if (ctx.header.has(name)) ctx.unmapped.add(`${name} (a trailing window)`);
  if ([...ctx.header.keys()].some((n) => PCT.test(n)))
    ctx.unmapped.add('percentiles (a trailing window)');
  if (ctx.header.has('Total Average Content Size') || ctx.header.has('Average Content Size'))
    ctx.unmapped.add('Average Content Size');
  return [...last].map(([key, row]) => {
    const r = emptyResult();
    r.labels = labelsOf(row, '_stats_history.csv');
    // 0.14 named the cumulative columns as _stats.csv does; 1.0 on prefixed them "Total".
    r.requests = row.count('Total Request Count', '# requests');
    r.errors = row.count('Total Failure Count', '# failures');
    r.meanMs = row.number('Total Average Response Time', 'Average response time');
    r.minMs = row.number('Total Min Response Time', 'Min response time');
    r.maxMs = row.number('Total Max Response Time', 'Max response time');
    if (r.requests === 0) {
      r.minMs = null;
      r.maxMs = null;
      r.meanMs = null;
    }
    const median = row.number('Total Median Response Time', 'Median response time');
    if (median !== null && (r.requests ?? 0) > 0) {
      const maxTop = r.maxMs === null ? null : r.maxMs + (ctx.truncatedInts ? 1 : 0);
      r.percentiles = [reportedMedian(median, ctx.rounding, r.minMs, maxTop)];
    }
    const t0 = row.number('Timestamp');
    const firstTs = (first.get(key) as Row).number('Timestamp');
    if (firstTs !== null && firstTs <= 2 ** 40)
      r.startedAt = new Date(firstTs * 1000).toISOString();
    if (t0 !== null && firstTs !== null) r.labels.historySeconds = String(t0 - firstTs);
    const counts = [...(users.get(key) ?? [])];
    if (counts.length > 0) r.labels.users = counts.join(' ');
    // Users are Locust's concurrency: a history at one user count is one load level.
    if (counts.length === 1)
      r.connections = toCount(counts[0], { field: 'User Count', line: row.line });
    return r;
  });
}

/** A failure text's kind: the HTTP status Locust's HttpUser names, else the text itself. */
function failureKind(error: string): string {
  const status = /\b([1-5]\d\d) (?:Client|Server) Error\b/.exec(error);
  if (status) return status[1] as string;
  return error.length > 200 ? `${error.slice(0, 199)}…` : error;
}

/** _failures.csv: one result per request name, its failures by kind. */
function failureResults(rows: Row[]): LoadResult[] {
  const byName = new Map<string, LoadResult>();
  for (const row of rows) {
    const key = `${row.text('Method') ?? ''}\u0000${row.text('Name') ?? ''}`;
    let r = byName.get(key);
    if (!r) {
      r = emptyResult();
      r.labels = labelsOf(row, '_failures.csv');
      r.errors = 0;
      byName.set(key, r);
    }
    const n = row.count('Occurrences') ?? 0;
    const kind = failureKind(row.text('Error') ?? '');
    r.errors = (r.errors ?? 0) + n;
    if (n > 0) r.errorsByCode[kind] = (r.errorsByCode[kind] ?? 0) + n;
  }
  return [...byName.values()];
}

/** _exceptions.csv: exceptions raised in the locustfile's tasks (not request failures). */
function exceptionResults(rows: Row[]): LoadResult[] {
  if (rows.length === 0) return [];
  const r = emptyResult();
  r.labels = { source: 'locust _exceptions.csv' };
  r.errors = 0;
  for (const row of rows) {
    const n = row.count('Count') ?? 0;
    const msg = (row.text('Message') ?? '').split('\n', 1)[0] as string;
    const kind = `exception: ${msg.length > 180 ? `${msg.slice(0, 179)}…` : msg}`;
    r.errors += n;
    if (n > 0) r.errorsByCode[kind] = (r.errorsByCode[kind] ?? 0) + n;
  }
  return [r];
}

// --- JSON --------------------------------------------------------------------------------

interface Entry {
  name: string;
  method: string | null;
  requests: number;
  none: number;
  failures: number;
  totalMs: number;
  minMs: number | null;
  maxMs: number;
  start: number | null;
  last: number | null;
  buckets: Map<number, number>;
}

const JSON_USED = [
  'name',
  'method',
  'num_requests',
  'num_none_requests',
  'num_failures',
  'total_response_time',
  'min_response_time',
  'max_response_time',
  'start_time',
  'last_request_timestamp',
  'response_times',
];

/**
 * Locust's --json output: one result per entry (request name and method) and one for them
 * all, each from its bucket counts. Entries of the same name and method (the lists of several
 * workers put together) are added bucket by bucket, as Locust's master does (StatsEntry.extend).
 */
export function decodeLocustJson(doc: unknown): Decoded {
  if (!isLocustJson(doc)) {
    throw new ResultFileError(
      'format_mismatch',
      'not Locust --json output: expected a JSON list of stats entries, each with "name", "num_requests", "num_failures" and "response_times"',
    );
  }
  const unmapped = new Unmapped();
  const merged = new Map<string, Entry>();
  (doc as Record<string, unknown>[]).forEach((e, i) => {
    const entry = readEntry(e, i);
    unmapped.rest(e, JSON_USED);
    const key = `${entry.method ?? ''}\u0000${entry.name}`;
    const into = merged.get(key);
    merged.set(key, into ? extend(into, entry) : entry);
  });
  const entries = [...merged.values()];
  const total = entries.reduce<Entry>((a, e) => extend(a, e), {
    name: 'Aggregated',
    method: null,
    requests: 0,
    none: 0,
    failures: 0,
    totalMs: 0,
    minMs: null,
    maxMs: 0,
    start: null,
    last: null,
    buckets: new Map(),
  });
  const results = [total, ...entries].map((e) => entryResult(e, e === total));
  return { results, unmapped: unmapped.list() };
}

function readEntry(e: Record<string, unknown>, i: number): Entry {
  const at = (f: string) => ({ field: `[${i}].${f}` });
  const buckets = new Map<number, number>();
  let timed = 0;
  for (const [k, v] of Object.entries(e.response_times as Record<string, unknown>)) {
    const key = toNonNegative(k, at(`response_times.${k}`));
    const n = toCount(v, at(`response_times.${k}`));
    if (key === null || n === null) continue;
    buckets.set(key, (buckets.get(key) ?? 0) + n);
    timed += n;
  }
  const requests = toCount(e.num_requests, at('num_requests')) ?? 0;
  const none = toCount(e.num_none_requests, at('num_none_requests')) ?? 0;
  if (timed + none !== requests) {
    throw new ResultFileError(
      'invalid_histogram',
      `[${i}] (${e.name}): response_times count ${timed} requests${none ? ` and num_none_requests ${none}` : ''}, but num_requests is ${requests}`,
      { field: `[${i}].response_times` },
    );
  }
  return {
    name: e.name as string,
    method: typeof e.method === 'string' && e.method !== '' ? e.method : null,
    requests,
    none,
    failures: toCount(e.num_failures, at('num_failures')) ?? 0,
    totalMs: toNonNegative(e.total_response_time, at('total_response_time')) ?? 0,
    minMs: toNonNegative(e.min_response_time, at('min_response_time')),
    maxMs: toNonNegative(e.max_response_time, at('max_response_time')) ?? 0,
    start: toNonNegative(e.start_time, at('start_time')),
    last: toNonNegative(e.last_request_timestamp, at('last_request_timestamp')),
    buckets,
  };
}

const least = (a: number | null, b: number | null) =>
  a === null ? b : b === null ? a : Math.min(a, b);
const most = (a: number | null, b: number | null) =>
  a === null ? b : b === null ? a : Math.max(a, b);

/** a + b as StatsEntry.extend adds them: counts and buckets summed, extremes kept. */
function extend(a: Entry, b: Entry): Entry {
  const buckets = new Map(a.buckets);
  for (const [k, n] of b.buckets) buckets.set(k, (buckets.get(k) ?? 0) + n);
  return {
    ...a,
    requests: a.requests + b.requests,
    none: a.none + b.none,
    failures: a.failures + b.failures,
    totalMs: a.totalMs + b.totalMs,
    minMs: least(a.minMs, b.minMs),
    maxMs: Math.max(a.maxMs, b.maxMs),
    start: least(a.start, b.start),
    last: most(a.last, b.last),
    buckets,
  };
}

function entryResult(e: Entry, aggregated: boolean): LoadResult {
  const r = emptyResult();
  r.labels = { source: 'locust --json', name: e.name };
  if (e.method !== null) r.labels.method = e.method;
  if (aggregated) r.labels.aggregated = 'true';
  r.requests = e.requests;
  r.errors = e.failures;
  const timed = e.requests - e.none;
  if (timed > 0) {
    r.minMs = e.minMs;
    r.maxMs = e.maxMs;
    r.meanMs = e.totalMs / timed;
    const bins = bucketBins(e.buckets, 'round', e.minMs, e.maxMs);
    if (bins.length > MAX_PERCENTILES_PER_RESULT) {
      throw new ResultFileError(
        'too_large',
        `${e.name}: ${bins.length} response-time buckets, more than the ${MAX_PERCENTILES_PER_RESULT} a result may hold`,
      );
    }
    r.histogram = bins;
    r.percentiles = percentilesFromBins(bins, LOCUST_PERCENTILES);
  }
  if (e.start !== null && e.last !== null && e.last > e.start) {
    // From the entry's start (Locust's reset or first request) to its last request, in s.
    r.durationMs = (e.last - e.start) * 1000;
    r.achievedRps = e.requests / (e.last - e.start);
    if (e.start <= 2 ** 40) r.startedAt = new Date(e.start * 1000).toISOString();
  }
  return r;
}
