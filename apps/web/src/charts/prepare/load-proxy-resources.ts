// The proxy CPU and memory panels: client and server side against the rate achieved, as the
// peak (what the Istio guide quotes) or the mean over the point.
import type { StoredLoadResult } from '@meshbench/schema';
import { linearTicks, niceCeil } from './axis.ts';
import {
  type LoadResultsRun,
  modeRank,
  OTHER_COLORS,
  type PreparedLines,
  type SeriesRow,
  type SeriesSpec,
  seriesKey,
  stepRows,
  valueAxis,
} from './load-results.ts';

export interface ResourceRow {
  run: string;
  mode: string;
  connections: number | null;
  rps: number;
  clientCpuCores: number | null;
  serverCpuCores: number | null;
  clientMemMiB: number | null;
  serverMemMiB: number | null;
  clientCpuCoresMax: number | null;
  serverCpuCoresMax: number | null;
  clientMemMiBMax: number | null;
  serverMemMiBMax: number | null;
}

/** The peak over the point, or its mean. */
export type ResourceStat = 'max' | 'mean';

export interface PreparedResources {
  cpu: PreparedLines | null;
  memory: PreparedLines | null;
  table: ResourceRow[];
  /** What all the lines share and their labels leave out: "both · 16 connections". */
  context: string;
  /** The statistic drawn. */
  stat: ResourceStat;
  /** Whether any point reports a peak (else only the mean can be drawn). */
  hasMax: { cpu: boolean; memory: boolean };
}

const SIDES = [
  {
    side: 'client',
    cpu: 'clientCpuCores',
    mem: 'clientMemMiB',
    cpuMax: 'clientCpuCoresMax',
    memMax: 'clientMemMiBMax',
    dash: '',
  },
  {
    side: 'server',
    cpu: 'serverCpuCores',
    mem: 'serverMemMiB',
    cpuMax: 'serverCpuCoresMax',
    memMax: 'serverMemMiBMax',
    dash: '6 3',
  },
] as const;

/**
 * Proxy CPU (cores) and memory (MiB) against the rate achieved (the target when the runner
 * reports none), client and server side, from the points that measured them. One line per
 * run, mode, connection count and side; the label names only what differs between lines.
 */
/** A merged step (id null, computed on read) is newer than any stored point. */
const newer = (a: number | null, b: number | null) =>
  (a ?? Number.POSITIVE_INFINITY) > (b ?? Number.POSITIVE_INFINITY);

export function prepareProxyResources(
  runs: LoadResultsRun[],
  stat: ResourceStat = 'mean',
): PreparedResources {
  const overlay = runs.length > 1;
  type Measured = { runIndex: number; run: LoadResultsRun; r: StoredLoadResult; rps: number };
  const latest = new Map<string, Measured>();
  runs.forEach((run, runIndex) => {
    for (const r of stepRows(run.results)) {
      const rps = r.achievedRps ?? r.targetRps;
      if (rps === null) continue;
      if (SIDES.every((s) => [s.cpu, s.mem, s.cpuMax, s.memMax].every((f) => r[f] === null))) {
        continue;
      }
      const id = `${runIndex}\u0000${r.mode}\u0000${r.connections}\u0000${rps}`;
      const seen = latest.get(id);
      if (!seen || newer(r.id, seen.r.id)) latest.set(id, { runIndex, run, r, rps });
    }
  });
  const measured = [...latest.values()].sort(
    (a, b) =>
      a.runIndex - b.runIndex ||
      modeRank(a.r.mode) - modeRank(b.r.mode) ||
      a.r.mode.localeCompare(b.r.mode) ||
      (a.r.connections ?? 0) - (b.r.connections ?? 0) ||
      a.rps - b.rps,
  );
  const groups = [...new Set(measured.map((m) => `${m.r.mode}\u0000${m.r.connections}`))];
  const modesVary = new Set(measured.map((m) => m.r.mode)).size > 1;
  const connectionsVary = new Set(measured.map((m) => m.r.connections)).size > 1;

  const build = (metric: 'cpu' | 'mem'): PreparedLines | null => {
    const specs = new Map<string, SeriesSpec>();
    const rows = new Map<number, SeriesRow>();
    const ys: number[] = [];
    for (const m of measured) {
      for (const s of SIDES) {
        const value = m.r[s[stat === 'max' ? (metric === 'cpu' ? 'cpuMax' : 'memMax') : metric]];
        if (value === null) continue;
        const key = seriesKey(m.runIndex, m.r.mode, m.r.connections ?? 'na', s.side);
        if (!specs.has(key)) {
          const parts = [
            ...(overlay ? [m.run.label] : []),
            ...(modesVary ? [m.r.mode] : []),
            ...(connectionsVary ? [`${m.r.connections ?? '?'} conn`] : []),
            s.side,
          ];
          const group = groups.indexOf(`${m.r.mode}\u0000${m.r.connections}`);
          specs.set(key, {
            key,
            label: parts.join(' · '),
            color: overlay
              ? m.run.color
              : group === 0
                ? m.run.color
                : (OTHER_COLORS[(group - 1) % OTHER_COLORS.length] as string),
            dash: s.dash,
          });
        }
        let row = rows.get(m.rps);
        if (!row) {
          row = { x: m.rps };
          rows.set(m.rps, row);
        }
        row[key] = value;
        ys.push(value);
      }
    }
    if (specs.size === 0) return null;
    const keys = [...specs.keys()];
    const sorted = [...rows.values()].sort((a, b) => a.x - b.x);
    for (const row of sorted) for (const k of keys) row[k] ??= null;
    const top = niceCeil(Math.max(...sorted.map((r) => r.x)));
    return {
      series: [...specs.values()],
      rows: sorted,
      x: { scale: 'linear', domain: [0, top], ticks: linearTicks(0, top, 5) },
      y: valueAxis(ys),
    };
  };
  const first = measured[0];
  const context = first
    ? [
        ...(modesVary ? [] : [first.r.mode]),
        ...(connectionsVary || first.r.connections === null
          ? []
          : [`${first.r.connections} connection${first.r.connections === 1 ? '' : 's'}`]),
      ].join(' · ')
    : '';
  const any = (fields: ('cpuMax' | 'memMax')[]) =>
    measured.some((m) => SIDES.some((s) => fields.some((f) => m.r[s[f]] !== null)));
  return {
    context,
    stat,
    hasMax: { cpu: any(['cpuMax']), memory: any(['memMax']) },
    cpu: build('cpu'),
    memory: build('mem'),
    table: measured.map((m) => ({
      run: m.run.label,
      mode: m.r.mode,
      connections: m.r.connections,
      rps: m.rps,
      clientCpuCores: m.r.clientCpuCores,
      serverCpuCores: m.r.serverCpuCores,
      clientMemMiB: m.r.clientMemMiB,
      serverMemMiB: m.r.serverMemMiB,
      clientCpuCoresMax: m.r.clientCpuCoresMax,
      serverCpuCoresMax: m.r.serverCpuCoresMax,
      clientMemMiBMax: m.r.clientMemMiBMax,
      serverMemMiBMax: m.r.serverMemMiBMax,
    })),
  };
}
