// History: one number of each run of a benchmark, as chart rows (one line per mesh) and
// table rows. Pure, so the page only draws.
import type { History } from '@meshbench/schema';
import { formatDurationMs } from './duration.ts';
import { formatCount } from './format.ts';

export interface HistoryRow {
  index: number;
  runId: string;
  startedAt: string;
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
      mesh: p.mesh.version ? `${p.mesh.name} ${p.mesh.version}` : p.mesh.name,
      branch: p.labels.branch ?? '',
      sha: (p.labels.sha ?? '').slice(0, 8),
      value: p.value,
    };
    row[`m:${p.mesh.name}`] = p.value;
    return row;
  });
}

/** The meshes present, in order of first appearance: one line each. */
export function historyMeshes(history: History): string[] {
  return [...new Set(history.points.map((p) => p.mesh.name))];
}

/** How a metric's value reads: latencies in ms, the share in %, missing as a count. */
export function formatMetric(metric: History['metric'], value: number | null): string {
  if (value === null) return '—';
  if (metric === 'within1s') return `${value.toFixed(1)} %`;
  if (metric === 'missing') return formatCount(value);
  return formatDurationMs(value);
}
