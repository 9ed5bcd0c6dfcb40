// k6's end-of-test summary to one load result, in every layout k6 writes. Follows grafana/k6
// v1.8.1 (26d2a6af72bf4ec61cf13dcb442870651bc3cd80):
// - handleSummary's data (legacy): metrics.<name> = {type, contains, values, thresholds} and
//   state.testRunDurationMs (internal/js/runner.go summarizeMetricsToObject; the values per
//   sink in internal/output/summary/data.go metricValueGetter: Counter count/rate, Gauge
//   value/min/max, Rate rate/passes/fails, Trend the summaryTrendStats such as p(99.9));
// - --summary-export (legacy): the same values inline, a Rate's "rate" renamed "value",
//   thresholds as booleans, no options or state (internal/js/summary-wrapper.js oldJSONSummary);
// - the v1 machine-readable summary (--new-machine-readable-summary, K6_NEW_MACHINE_READABLE_
//   SUMMARY; the default from k6 2), both as --summary-export and as handleSummary's data:
//   {version "1.0.0", config {duration (s), execution, script}, metadata, results {metrics[]
//   of {name, type, contains, values}, checks}} (internal/lib/summary/machine_readable.go,
//   internal/lib/summary/machinereadable/types_gen.go: Counter {count}, Gauge {max, min,
//   value}, Rate {matches, rate, total}, Trend {avg, max, med, min, p(90), p(95)}). k6 writes
//   it through its JS runtime's field names, not the JSON tags: generated_at, k6_version,
//   p90, p95 (internal/cmd/tests/cmd_run_test.go TestMachineReadableSummary); both are read.
// Time metrics are milliseconds in every layout; k6's percentiles interpolate between the
// recorded values (metrics/sink.go TrendSink.P), so they are kept as reported.
// Thresholds (grafana/k6 at 87883075ccd5e3d3fb961a860b3d6e422bbc353b): handleSummary's data
// holds metrics.<name>.thresholds.<expression> = {ok: !threshold.LastFailed} (internal/js/
// summary.go summarizeMetricsToObject); --summary-export writes each as a boolean that is
// true when the threshold FAILED (internal/js/summary-wrapper.js oldJSONSummary:
// `thresholds[name] = !threshold.ok`); the v1 machine-readable summary has none. Kept as k6's
// verdict. The v1 summary's config.script is the whole script source (internal/cmd/run.go
// `Script: string(test.source.Data)`; TestMachineReadableSummary matches it as a string):
// it holds URLs and tokens, and is not kept.
import type { LoadResult, RunnerThreshold } from '@meshbench/schema';
import { ResultFileError } from './result-file-error.ts';
import {
  emptyResult,
  isRecord,
  type Json,
  orderPercentiles,
  rfc3339,
  secondsToMs,
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

/** The v1 machine-readable summary: results.metrics[] of {name, type, values}. */
function isMachineReadable(doc: Json): boolean {
  return (
    isRecord(doc.results) &&
    Array.isArray(doc.results.metrics) &&
    (isRecord(doc.config) || isRecord(doc.metadata)) &&
    doc.results.metrics.every((m) => isRecord(m) && typeof m.name === 'string')
  );
}

export function isK6Summary(doc: unknown): doc is Json {
  if (!isRecord(doc)) return false;
  if (isMachineReadable(doc)) return true;
  return (
    isRecord(doc.metrics) &&
    (K6_METRICS.some((m) => m in (doc.metrics as Json)) || isRecord(doc.root_group))
  );
}

/** One metric's numbers and where they sit in the file (for errors). */
interface K6Metric {
  values: Json;
  at: string;
  /** How the unmapped list names it. */
  label: string;
}

export function decodeK6(doc: unknown): { results: LoadResult[]; unmapped: string[] } {
  if (!isK6Summary(doc)) {
    throw new ResultFileError(
      'format_mismatch',
      'not a k6 summary: expected "metrics" holding k6 metrics such as http_req_duration, or a machine-readable summary with results.metrics',
      { field: 'metrics' },
    );
  }
  const unmapped = new Unmapped();
  const r = emptyResult();
  const metrics = isMachineReadable(doc)
    ? machineReadable(doc, r, unmapped)
    : legacy(doc, r, unmapped);
  const used = new Set<string>();
  const metric = (name: string): K6Metric | null => {
    const m = metrics.get(name);
    if (m) used.add(name);
    return m ?? null;
  };
  const where = (m: K6Metric, stat: string) => ({ field: `${m.at}.${stat}` });

  const latencyName = metrics.has('http_req_duration') ? 'http_req_duration' : 'grpc_req_duration';
  const latency = metric(latencyName);
  if (latency) {
    const ps: LoadResult['percentiles'] = [];
    for (const [stat, value] of Object.entries(latency.values)) {
      // "p(99.9)" as the legacy layouts and the schema's JSON tags write it, "p90" as k6's
      // JS runtime writes the machine-readable summary.
      const pm = /^p\((\d+(?:\.\d+)?)\)$|^p(\d+)$/.exec(stat);
      if (stat === 'avg') r.meanMs = toNonNegative(value, where(latency, stat));
      else if (stat === 'min') r.minMs = toNonNegative(value, where(latency, stat));
      else if (stat === 'max') r.maxMs = toNonNegative(value, where(latency, stat));
      else if (stat === 'med' || pm) {
        const ms = toNonNegative(value, where(latency, stat));
        const p = stat === 'med' ? 50 : Number(pm?.[1] ?? pm?.[2]);
        if (ms !== null) ps.push({ p, ms, exact: false, method: 'reported' });
      } else if (value !== null) unmapped.add(`${latency.at}.${stat}`);
    }
    r.percentiles = orderPercentiles(ps);
  }

  const reqs = metric('http_reqs');
  if (reqs) {
    r.requests = toCount(reqs.values.count, where(reqs, 'count'));
    if (reqs.values.rate !== undefined) {
      r.achievedRps = toNonNegative(reqs.values.rate, where(reqs, 'rate'));
    } else if (r.requests !== null && r.durationMs !== null && r.durationMs > 0) {
      // The v1 Counter keeps no rate; k6's own is count / test run duration (data.go
      // calculateRate), which config.duration states.
      r.achievedRps = r.requests / (r.durationMs / 1000);
    }
  }

  const failed = metric('http_req_failed');
  if (failed) {
    // http_req_failed adds 1 per failed request: a Rate counts those non-zero samples as
    // "passes" (legacy) or "matches" (v1).
    const key = failed.values.matches !== undefined ? 'matches' : 'passes';
    r.errors = toCount(failed.values[key], where(failed, key));
  }

  // A VU is k6's unit of concurrency: the peak of active VUs is the test's concurrency.
  const vus = metric('vus') ?? metric('vus_max');
  if (vus) {
    const key = vus.values.max !== undefined ? 'max' : 'value';
    r.connections = toCount(vus.values[key], where(vus, key));
  }

  for (const [name, m] of metrics) {
    if (!used.has(name)) unmapped.add(m.label);
  }
  return { results: [r], unmapped: unmapped.list() };
}

/** The legacy layouts: metrics.<name>, values nested (handleSummary) or inline (export). */
function legacy(doc: Json, r: LoadResult, unmapped: Unmapped): Map<string, K6Metric> {
  const out = new Map<string, K6Metric>();
  const thresholds: RunnerThreshold[] = [];
  for (const [name, m] of Object.entries(doc.metrics as Json)) {
    if (!isRecord(m)) continue;
    const label = `metrics.${name}`;
    if (isRecord(m.thresholds)) {
      for (const [threshold, verdict] of Object.entries(m.thresholds)) {
        const ok = thresholdOk(verdict);
        if (ok === null) {
          throw new ResultFileError(
            'invalid_value',
            `${label}.thresholds["${threshold}"] must be {"ok": true|false} (handleSummary) or a boolean (--summary-export), got ${JSON.stringify(verdict)}`,
            { field: `${label}.thresholds` },
          );
        }
        thresholds.push({ metric: name, threshold, ok });
      }
    }
    if (isRecord(m.values)) out.set(name, { values: m.values, at: `${label}.values`, label });
    else {
      const { thresholds: _t, type: _ty, contains: _c, ...inline } = m;
      out.set(name, { values: inline, at: label, label });
    }
  }
  if (isRecord(doc.state)) {
    r.durationMs = toNonNegative(doc.state.testRunDurationMs, { field: 'state.testRunDurationMs' });
    unmapped.rest(doc.state, ['testRunDurationMs', ...(PRESENTATION.state ?? [])], 'state.');
  }
  if (isRecord(doc.options)) unmapped.rest(doc.options, PRESENTATION.options ?? [], 'options.');
  if (isRecord(doc.root_group) && hasChecksOrGroups(doc.root_group)) unmapped.add('root_group');
  unmapped.rest(doc, ['metrics', 'state', 'options', 'root_group']);
  if (thresholds.length > 0) r.thresholds = thresholds;
  return out;
}

/**
 * A threshold's verdict in either legacy layout: handleSummary's {ok} says whether it held;
 * --summary-export's boolean says whether it failed (oldJSONSummary writes `!threshold.ok`).
 */
function thresholdOk(verdict: unknown): boolean | null {
  if (isRecord(verdict) && typeof verdict.ok === 'boolean') return verdict.ok;
  if (typeof verdict === 'boolean') return !verdict;
  return null;
}

/** The v1 machine-readable summary: results.metrics[], config, metadata. */
function machineReadable(doc: Json, r: LoadResult, unmapped: Unmapped): Map<string, K6Metric> {
  const results = doc.results as Json & { metrics: Json[] };
  const out = new Map<string, K6Metric>();
  results.metrics.forEach((m, i) => {
    const at = `results.metrics[${i}]`;
    if (!isRecord(m.values)) {
      throw new ResultFileError('invalid_value', `${at}.values must be an object`, {
        field: `${at}.values`,
      });
    }
    out.set(m.name as string, {
      values: m.values,
      at: `${at}.values`,
      label: `results.metrics[${m.name as string}]`,
    });
  });

  const config = isRecord(doc.config) ? doc.config : {};
  const seconds = toNonNegative(config.duration, { field: 'config.duration' });
  if (seconds !== null) r.durationMs = secondsToMs(seconds);
  if (typeof config.execution === 'string' && config.execution !== '') {
    r.labels.execution = config.execution;
  }
  // The whole test script: not kept (it is named among the unmapped fields).
  unmapped.rest(config, ['duration', 'execution'], 'config.');

  const metadata = isRecord(doc.metadata) ? doc.metadata : {};
  const version = metadata.k6_version ?? metadata.k6Version;
  if (typeof version === 'string' && version !== '') r.labels.runnerVersion = version;
  // When the summary was written (after teardown and handleSummary), not when the load began.
  const generated = rfc3339(metadata.generated_at ?? metadata.generatedAt);
  if (generated !== null) r.labels.summaryGeneratedAt = generated;
  unmapped.rest(metadata, ['k6_version', 'k6Version', 'generated_at', 'generatedAt'], 'metadata.');

  if (typeof doc.version === 'string') r.labels.summaryVersion = doc.version;
  if (isRecord(results.checks) && hasValue(results.checks)) unmapped.add('results.checks');
  unmapped.rest(results, ['metrics', 'checks'], 'results.');
  unmapped.rest(doc, ['results', 'config', 'metadata', 'version']);
  return out;
}

function hasValue(v: Json): boolean {
  return Object.values(v).some((x) => (Array.isArray(x) ? x.length > 0 : x != null));
}

function hasChecksOrGroups(g: Json): boolean {
  const n = (v: unknown) => (Array.isArray(v) ? v.length : isRecord(v) ? Object.keys(v).length : 0);
  return n(g.checks) > 0 || n(g.groups) > 0;
}
