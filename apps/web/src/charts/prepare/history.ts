// History: one number of each run of a benchmark, as chart rows (one line per mesh) and
// table rows. Pure, so the page only draws.
import {
  HISTORY_METRICS,
  type History,
  type HistoryMetric,
  type PercentileAccuracy,
} from '@meshbench/schema';
import { formatDurationMs } from './duration.ts';
import { formatCount } from './format.ts';

export interface HistoryRow {
  index: number;
  runId: string;
  startedAt: string;
  /** startedAt as epoch ms: the time axis. */
  time: number;
  /** The CI run's link (label `url`), or ''. */
  ciUrl: string;
  mesh: string;
  branch: string;
  sha: string;
  /** One key per mesh, holding the value for this run's mesh only. */
  [mesh: `m:${string}`]: number | null;
  value: number | null;
  /** How exact the value is ('' for a value that is not a percentile). */
  exactness: string;
  /** What a propagation value is over: "pooled over 20 changes" for a churn run, else ''. */
  over: string;
}

export function historyRows(history: History): HistoryRow[] {
  return history.points.map((p, index) => {
    const row: HistoryRow = {
      index,
      runId: p.runId,
      startedAt: p.startedAt,
      time: Date.parse(p.startedAt),
      ciUrl: p.labels.url ?? '',
      mesh: p.mesh.version ? `${p.mesh.name} ${p.mesh.version}` : p.mesh.name,
      branch: p.labels.branch ?? '',
      sha: (p.labels.sha ?? '').slice(0, 8),
      value: p.value,
      exactness: p.value === null ? '' : exactness(p.accuracy),
      over: p.pooledChanges === null ? '' : `pooled over ${formatCount(p.pooledChanges)} changes`,
    };
    row[`m:${p.mesh.name}`] = p.value;
    return row;
  });
}

/** The scenarios of a history, most runs first (then by name). */
export function historyScenarios(history: History): { scenario: string; runs: number }[] {
  const counts = new Map<string, number>();
  for (const p of history.points) counts.set(p.scenario, (counts.get(p.scenario) ?? 0) + 1);
  return [...counts]
    .map(([scenario, runs]) => ({ scenario, runs }))
    .sort((a, b) => b.runs - a.runs || a.scenario.localeCompare(b.scenario));
}

/**
 * A date on the history's x axis (UTC): the day when its runs span two days or more, else the
 * day and the minute, so that runs hours apart do not all read "2026-02-01".
 */
export function historyDateLabel(ms: number, spanMs: number): string {
  const iso = new Date(ms).toISOString();
  return spanMs < 2 * 86_400_000 ? `${iso.slice(5, 10)} ${iso.slice(11, 16)}` : iso.slice(0, 10);
}

/** One scenario's points and change points: a history is read one scenario at a time. */
export function forScenario(history: History, scenario: string): History {
  return {
    ...history,
    points: history.points.filter((p) => p.scenario === scenario),
    changePoints: history.changePoints.filter((c) => c.scenario === scenario),
  };
}

/** The meshes present, in order of first appearance: one line each. */
export function historyMeshes(history: History): string[] {
  return [...new Set(history.points.map((p) => p.mesh.name))];
}

export interface ChangePointMark {
  /** The chart row (run) the change starts at. */
  index: number;
  runId: string;
  previousRunId: string;
  series: string;
  mesh: string;
  /** "+30.1 %", signed. */
  change: string;
  before: string;
  after: string;
  pValue: string;
  /** The change point's kept alert, when a run's finish found it. */
  alert: { id: string; state: 'open' | 'acknowledged' | 'dismissed' } | null;
}

/** Each change point at the row of its first run after the change, in row order. */
export function changePointMarks(history: History): ChangePointMark[] {
  const rowOf = new Map(history.points.map((p, i) => [p.runId, i]));
  const marks: ChangePointMark[] = [];
  for (const c of history.changePoints) {
    const index = rowOf.get(c.runId);
    if (index === undefined) continue;
    const pct = c.change * 100;
    marks.push({
      index,
      runId: c.runId,
      previousRunId: c.previousRunId,
      series: [c.scenario, c.mesh, c.branch].filter((x) => x !== null && x !== '').join(' · '),
      mesh: c.mesh,
      change: `${pct >= 0 ? '+' : '−'}${Math.abs(pct).toFixed(1)} %`,
      before: formatMetric(history.metric, c.before),
      after: formatMetric(history.metric, c.after),
      pValue: c.pValue < 1e-4 ? c.pValue.toExponential(1) : c.pValue.toFixed(4),
      alert: c.alert,
    });
  }
  return marks.sort((a, b) => a.index - b.index);
}

/** How a metric's value reads: latencies and times in ms, shares in %, counts, rates. */
export function formatMetric(metric: History['metric'], value: number | null): string {
  if (value === null) return '—';
  if (metric === 'within1s' || metric === 'cpuPeak' || metric === 'cpuSteady')
    return `${value.toFixed(1)} %`;
  if (metric === 'errorRate')
    return `${value < 0.1 && value > 0 ? value.toFixed(3) : value.toFixed(2)} %`;
  if (metric === 'missing') return formatCount(value);
  if (metric === 'achievedRps') return `${formatCount(Math.round(value))} req/s`;
  return formatDurationMs(value);
}

/** What each metric is called on the page, by the kind of run that has it. */
const LABELS: Record<HistoryMetric, [group: string, label: string]> = {
  p50: ['Propagation', 'P50'],
  p90: ['Propagation', 'P90'],
  p95: ['Propagation', 'P95'],
  p96: ['Propagation', 'P96'],
  p99: ['Propagation', 'P99'],
  'p99.9': ['Propagation', 'P99.9'],
  mean: ['Propagation', 'mean'],
  max: ['Propagation', 'time to 100 %'],
  within1s: ['Propagation', '% within 1 s'],
  missing: ['Propagation', 'proxies missing'],
  joined50: ['Scale-up', 'time to 50 % joined'],
  joined90: ['Scale-up', 'time to 90 % joined'],
  joined99: ['Scale-up', 'time to 99 % joined'],
  joined100: ['Scale-up', 'time to 100 % joined'],
  cpuPeak: ['Scale-up', 'control-plane CPU, peak'],
  cpuSteady: ['Scale-up', 'control-plane CPU, after the last join'],
  loadP50: ['Data plane', 'P50 latency'],
  loadP99: ['Data plane', 'P99 latency'],
  achievedRps: ['Data plane', 'achieved rate'],
  errorRate: ['Data plane', 'errors, % of requests'],
};

export const metricLabel = (m: HistoryMetric) => LABELS[m][1];

export const isHistoryMetric = (v: string | null): v is HistoryMetric =>
  v !== null && (HISTORY_METRICS as readonly string[]).includes(v);

/**
 * The metric shown: the URL's when it names one; else P99 when the runs have it (or before
 * the first answer), else the first metric the runs have.
 */
export function chosenMetric(
  fromUrl: string | null,
  offered: readonly HistoryMetric[] | null,
): HistoryMetric {
  if (isHistoryMetric(fromUrl)) return fromUrl;
  if (!offered || offered.length === 0 || offered.includes('p99')) return 'p99';
  return offered[0] as HistoryMetric;
}

/**
 * The metric picker's groups: the metrics these runs have, by kind of run, in the order of
 * HISTORY_METRICS; the metric shown is kept even when no run has it.
 */
export function metricOptions(
  offered: readonly HistoryMetric[],
  shown: HistoryMetric,
): { group: string; metrics: { metric: HistoryMetric; label: string }[] }[] {
  const groups = new Map<string, { metric: HistoryMetric; label: string }[]>();
  for (const m of HISTORY_METRICS) {
    if (m !== shown && !offered.includes(m)) continue;
    const [group, label] = LABELS[m];
    let list = groups.get(group);
    if (!list) {
      list = [];
      groups.set(group, list);
    }
    list.push({
      metric: m,
      label: m === shown && !offered.includes(m) ? `${label} (no runs)` : label,
    });
  }
  return [...groups].map(([group, metrics]) => ({ group, metrics }));
}

/** How exact a value is, in a few words: "exact", "reported", "±1 %", "in [4 ms, 5 ms]". */
export function exactness(a: PercentileAccuracy | null): string {
  if (!a) return '';
  if (a.exact) return 'exact';
  if (a.relativeError !== undefined) return `±${+(a.relativeError * 100).toPrecision(2)} %`;
  if (a.clockErrorMs !== undefined) return `±${formatDurationMs(a.clockErrorMs)} (clocks)`;
  if (a.lower !== undefined && a.upper !== undefined && a.lower !== null && a.upper !== null)
    return `in [${formatDurationMs(a.lower)}, ${formatDurationMs(a.upper)}]`;
  return a.method;
}

/** Where the detection settings came from, as the page says it. */
export function detectionSource(source: History['detection']['source']): string {
  return source === 'project'
    ? "the project's settings"
    : source === 'request'
      ? 'set in this link'
      : 'the defaults';
}

/**
 * The benchmark a History page opens on when its URL names none: the one with the most runs
 * (then by name), and its scenario with the most runs; null without runs.
 */
export function defaultBenchmark(
  counts: readonly { benchmark: string; scenario: string; runs: number }[],
): { benchmark: string; scenario: string } | null {
  const byBenchmark = new Map<string, number>();
  for (const c of counts)
    byBenchmark.set(c.benchmark, (byBenchmark.get(c.benchmark) ?? 0) + c.runs);
  const [benchmark] =
    [...byBenchmark].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))[0] ?? [];
  if (benchmark === undefined) return null;
  const scenario = counts
    .filter((c) => c.benchmark === benchmark)
    .sort((a, b) => b.runs - a.runs || a.scenario.localeCompare(b.scenario))[0]?.scenario;
  return scenario === undefined ? null : { benchmark, scenario };
}
