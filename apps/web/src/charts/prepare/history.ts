// History: one number of each run of a benchmark, as chart rows (one line per mesh) and
// table rows. Pure, so the page only draws.
import type { History } from '@meshbench/schema';
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

/** How a metric's value reads: latencies in ms, the share in %, missing as a count. */
export function formatMetric(metric: History['metric'], value: number | null): string {
  if (value === null) return '—';
  if (metric === 'within1s') return `${value.toFixed(1)} %`;
  if (metric === 'missing') return formatCount(value);
  return formatDurationMs(value);
}
