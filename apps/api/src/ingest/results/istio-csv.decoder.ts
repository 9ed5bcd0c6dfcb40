// Istio's perf benchmark CSV (istio/tools perf/benchmark runner, fortio.py --csv) to one
// load result per row. Latency columns are microseconds, ActualDuration whole seconds,
// cpu_mili_* milli-cores and mem_MB_*/mem_Mi_* MiB (prom.py divides bytes by 1024²).
// The header varies between versions, so columns are matched by name, not position.
// Follows istio/tools perf/benchmark/runner/fortio.py at bf40020b919935ef9420e212623f0ed11dfced19
// (convertData: ActualQPS rounded to a whole number, RequestedQPS "max" written as
// 99999999, ActualDuration whole seconds, min/max/p<N> as whole microseconds with the
// percentile's point dropped, "p999" for 99.9; write_csv: the --csv columns in order, "-"
// for a missing value) and perf/benchmark/runner/prom.py for the cpu_mili_*/mem_* columns;
// checked on the CSVs istio/tools kept (fixtures/public/istio-tools, 2019-2026).
import type { LoadResult } from '@meshbench/schema';
import { ResultFileError } from './result-file-error.ts';
import {
  emptyResult,
  MAX_RESULTS_PER_FILE,
  modeFromLabel,
  orderPercentiles,
  rfc3339,
  secondsToMs,
  shift,
  toCount,
  toNonNegative,
  Unmapped,
  usToMs,
} from './values.ts';

/** fortio.py writes this for RequestedQPS "max". */
const MAX_QPS = 99999999;

const CLIENT_PROXY = new Set([
  'istio_proxy_fortioclient',
  'fortio_deployment_proxy',
  'fortioclient_proxy',
]);
const SERVER_PROXY = new Set([
  'istio_proxy_fortioserver',
  'fortioserver_deployment_proxy',
  'fortioserver_proxy',
]);

export function isIstioCsvHeader(line: string): boolean {
  const cells = splitCsvLine(line).map((c) => c.trim());
  return cells.includes('Labels') && (cells.includes('ActualQPS') || cells.includes('NumThreads'));
}

/** One CSV record on one line; quotes as RFC 4180 has them. */
export function splitCsvLine(line: string): string[] {
  const cells: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (quoted) {
      if (c === '"' && line[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (c === '"') quoted = false;
      else cell += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      cells.push(cell);
      cell = '';
    } else cell += c;
  }
  cells.push(cell);
  return cells;
}

type ResourceKey = `${'client' | 'server'}${'CpuCores' | 'MemMiB'}${'' | 'Max'}`;
type Cell = { value: string; field: string; line: number };
type Column = (r: LoadResult, cell: Cell) => void;

function cellNumber(cell: Cell): number | null {
  // fortio.py writes "-" for a key its run did not have.
  if (cell.value.trim() === '-') return null;
  return toNonNegative(cell.value, cell);
}

/** What a column holds, or null when it has no place in a load result. */
function column(name: string): Column | null {
  switch (name) {
    case 'StartTime':
      return (r, c) => {
        r.startedAt = rfc3339(c.value.trim());
      };
    case 'ActualDuration':
      return (r, c) => {
        const s = cellNumber(c);
        r.durationMs = s === null ? null : secondsToMs(s);
      };
    case 'Labels':
      return (r, c) => readLabel(r, c.value.trim());
    case 'NumThreads':
      return (r, c) => {
        r.connections = c.value.trim() === '-' ? null : toCount(c.value, c);
      };
    case 'ActualQPS':
      return (r, c) => {
        r.achievedRps = cellNumber(c);
      };
    case 'RequestedQPS':
      return (r, c) => {
        const q = cellNumber(c);
        if (q === MAX_QPS) r.labels.requestedQps = 'max';
        if (q !== null) r.targetRps = q === MAX_QPS ? null : q;
      };
    case 'RunType':
      return (r, c) => {
        if (c.value.trim() !== '' && c.value.trim() !== '-') r.labels.runType = c.value.trim();
      };
    case 'min':
      return (r, c) => {
        const us = cellNumber(c);
        r.minMs = us === null ? null : usToMs(us);
      };
    case 'max':
      return (r, c) => {
        const us = cellNumber(c);
        r.maxMs = us === null ? null : usToMs(us);
      };
  }
  const p = /^p(\d+)$/.exec(name);
  if (p) {
    const percentile = percentileOf(p[1] as string);
    return (r, c) => {
      const us = cellNumber(c);
      if (us !== null) r.percentiles.push({ p: percentile, ms: usToMs(us) });
    };
  }
  const resource = /^(cpu_mili|mem_MB|mem_Mi)_(avg|max)_(.+)$/.exec(name);
  if (resource) {
    const [, metric, stat, component] = resource as unknown as [string, string, string, string];
    const side = CLIENT_PROXY.has(component)
      ? 'client'
      : SERVER_PROXY.has(component)
        ? 'server'
        : null;
    if (side === null) return null;
    const key =
      `${side}${metric === 'cpu_mili' ? 'CpuCores' : 'MemMiB'}${stat === 'max' ? 'Max' : ''}` as ResourceKey;
    return (r, c) => {
      const v = cellNumber(c);
      r[key] = v === null ? null : metric === 'cpu_mili' ? shift(v, -3) : v;
    };
  }
  return null;
}

/** fortio.py names a percentile column "p" + the percentile without its dot: p999 is 99.9. */
function percentileOf(digits: string): number {
  if (digits.length <= 2 || digits === '100') return Number(digits);
  return Number(`${digits.slice(0, 2)}.${digits.slice(2)}`);
}

const LABEL = /^([0-9a-f]+)_qps_([^_]+)_c_(\d+)_(\d+)(?:_(.*))?$/;

// <sha>_qps_<qps>_c_<connections>_<payload bytes>_<config>_<mode>, per the runner.
function readLabel(r: LoadResult, label: string): void {
  if (label === '' || label === '-') return;
  r.labels.label = label;
  const mode = modeFromLabel(label);
  if (mode) r.mode = mode;
  const m = LABEL.exec(label);
  if (!m) return;
  const [, sha, qps, , payload, rest = ''] = m as unknown as string[];
  r.labels.sha = sha as string;
  r.labels.payloadBytes = payload as string;
  const config = mode ? rest.replace(/(?:^|_)[^_]+$/, '') : rest;
  if (config !== '') r.labels.config = config;
  if (qps === 'max') r.labels.requestedQps = 'max';
  else if (r.targetRps === null && /^\d+(\.\d+)?$/.test(qps as string)) r.targetRps = Number(qps);
}

export function decodeIstioCsv(text: string): { results: LoadResult[]; unmapped: string[] } {
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  const headerAt = lines.findIndex((l) => l.trim() !== '');
  const header =
    headerAt === -1 ? [] : splitCsvLine(lines[headerAt] as string).map((c) => c.trim());
  if (headerAt === -1 || !isIstioCsvHeader(lines[headerAt] as string)) {
    throw new ResultFileError(
      'format_mismatch',
      'not an Istio perf CSV: expected a header with Labels and ActualQPS or NumThreads columns',
      { line: headerAt === -1 ? 1 : headerAt + 1 },
    );
  }
  const unmapped = new Unmapped();
  const columns = header.map((name) => {
    const c = column(name);
    if (c === null) unmapped.add(name);
    return c;
  });
  // Labels set the target rate only when no RequestedQPS column does: read it last.
  const order = header
    .map((_, i) => i)
    .sort((a, b) => Number(header[a] === 'Labels') - Number(header[b] === 'Labels'));

  const results: LoadResult[] = [];
  for (let i = headerAt + 1; i < lines.length; i++) {
    const line = lines[i] as string;
    if (line.trim() === '') continue;
    if (results.length === MAX_RESULTS_PER_FILE) {
      throw new ResultFileError(
        'too_large',
        `line ${i + 1}: the file holds more than the ${MAX_RESULTS_PER_FILE} load results one file may hold`,
        { line: i + 1 },
      );
    }
    const cells = splitCsvLine(line);
    if (cells.length !== header.length) {
      throw new ResultFileError(
        'invalid_value',
        `line ${i + 1} has ${cells.length} cells but the header has ${header.length}`,
        { line: i + 1 },
      );
    }
    const r = emptyResult();
    for (const k of order) {
      const col = columns[k];
      if (col) col(r, { value: cells[k] as string, field: header[k] as string, line: i + 1 });
    }
    r.percentiles = orderPercentiles(r.percentiles);
    results.push(r);
  }
  return { results, unmapped: unmapped.list() };
}
