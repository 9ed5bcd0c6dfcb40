// k6's end-of-test summary JSON to one load result: both the legacy --summary-export
// layout (metrics.<name>.<stat>) and handleSummary's (metrics.<name>.values.<stat>).
// k6 reports time in milliseconds already.
import type { LoadResult } from '@meshbench/schema';
import { ResultFileError } from './result-file-error.ts';
import {
  emptyResult,
  isRecord,
  type Json,
  orderPercentiles,
  toCount,
  toNonNegative,
  Unmapped,
} from './values.ts';

const K6_METRICS = [
  'http_req_duration',
  'http_reqs',
  'iterations',
  'vus',
  'vus_max',
  'iteration_duration',
];

// Summary rendering settings, not facts about the test.
const PRESENTATION: Record<string, readonly string[]> = {
  options: ['summaryTrendStats', 'summaryTimeUnit', 'noColor'],
  state: ['isStdOutTTY', 'isStdErrTTY'],
};

export function isK6Summary(doc: unknown): doc is Json & { metrics: Json } {
  return (
    isRecord(doc) &&
    isRecord(doc.metrics) &&
    (K6_METRICS.some((m) => m in (doc.metrics as Json)) || isRecord(doc.root_group))
  );
}

export function decodeK6(doc: unknown): { results: LoadResult[]; unmapped: string[] } {
  if (!isK6Summary(doc)) {
    throw new ResultFileError(
      'format_mismatch',
      'not a k6 summary: expected an object with "metrics" holding k6 metrics such as http_req_duration',
      { field: 'metrics' },
    );
  }
  const unmapped = new Unmapped();
  const r = emptyResult();
  const metrics = doc.metrics;
  const used: string[] = [];

  const stats = (name: string): Json | null => {
    const m = metrics[name];
    if (!isRecord(m)) return null;
    used.push(name);
    if (isRecord(m.thresholds)) unmapped.add(`metrics.${name}.thresholds`);
    // handleSummary nests the numbers under "values"; --summary-export puts them inline.
    if (isRecord(m.values)) return m.values;
    const { thresholds: _t, type: _ty, contains: _c, ...inline } = m;
    return inline;
  };
  const at = (name: string, stat: string) => ({
    field: isRecord((metrics[name] as Json | undefined)?.values)
      ? `metrics.${name}.values.${stat}`
      : `metrics.${name}.${stat}`,
  });

  const latencyName = 'http_req_duration' in metrics ? 'http_req_duration' : 'grpc_req_duration';
  const latency = stats(latencyName);
  if (latency) {
    const ps: LoadResult['percentiles'] = [];
    for (const [stat, value] of Object.entries(latency)) {
      const where = at(latencyName, stat);
      const pm = /^p\((\d+(?:\.\d+)?)\)$/.exec(stat);
      if (stat === 'avg') r.meanMs = toNonNegative(value, where);
      else if (stat === 'min') r.minMs = toNonNegative(value, where);
      else if (stat === 'max') r.maxMs = toNonNegative(value, where);
      else if (stat === 'med' || pm) {
        const ms = toNonNegative(value, where);
        if (ms !== null) ps.push({ p: stat === 'med' ? 50 : Number(pm?.[1]), ms });
      } else unmapped.add(`metrics.${latencyName}.${stat}`);
    }
    r.percentiles = orderPercentiles(ps);
  }

  const reqs = stats('http_reqs');
  if (reqs) {
    r.requests = toCount(reqs.count, at('http_reqs', 'count'));
    r.achievedRps = toNonNegative(reqs.rate, at('http_reqs', 'rate'));
  }

  const failed = stats('http_req_failed');
  if (failed) {
    // A Rate counts non-zero samples as "passes"; http_req_failed adds 1 per failed request.
    r.errors = toCount(failed.passes, at('http_req_failed', 'passes'));
  }

  // A VU is k6's unit of concurrency: the peak of active VUs is the test's concurrency.
  const vusName = isRecord(metrics.vus) ? 'vus' : isRecord(metrics.vus_max) ? 'vus_max' : null;
  const vus = vusName ? stats(vusName) : null;
  if (vusName && vus) {
    const key = vus.max !== undefined ? 'max' : 'value';
    r.connections = toCount(vus[key], at(vusName, key));
  }

  for (const [name, m] of Object.entries(metrics)) {
    if (!used.includes(name) && isRecord(m)) unmapped.add(`metrics.${name}`);
  }

  if (isRecord(doc.state)) {
    r.durationMs = toNonNegative(doc.state.testRunDurationMs, { field: 'state.testRunDurationMs' });
    unmapped.rest(doc.state, ['testRunDurationMs', ...(PRESENTATION.state ?? [])], 'state.');
  }
  if (isRecord(doc.options)) unmapped.rest(doc.options, PRESENTATION.options ?? [], 'options.');
  if (isRecord(doc.root_group)) {
    const g = doc.root_group;
    if (hasChecksOrGroups(g)) unmapped.add('root_group');
  }
  unmapped.rest(doc, ['metrics', 'state', 'options', 'root_group']);
  return { results: [r], unmapped: unmapped.list() };
}

function hasChecksOrGroups(g: Json): boolean {
  const n = (v: unknown) => (Array.isArray(v) ? v.length : isRecord(v) ? Object.keys(v).length : 0);
  return n(g.checks) > 0 || n(g.groups) > 0;
}
