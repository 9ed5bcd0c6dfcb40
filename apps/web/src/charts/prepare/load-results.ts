// Data-plane load results prepared for drawing: points grouped by request rate and mode,
// latency against connections, added latency over the baseline, proxy CPU and memory against
// rate, achieved against target rate, errors, and the P99/P50 tail band. One run or several.
import type { StoredLoadResult } from '@meshbench/schema';
import { linearTicks, niceCeil } from './axis.ts';
import { type MarkedPercentile, markMsPercentile } from './percentile-accuracy.ts';

/** One run's results, with how its lines are drawn when runs are overlaid. */
export interface LoadResultsRun {
  label: string;
  color: string;
  results: StoredLoadResult[];
}

/** What the load-result charts accept: one run's results, or several runs to overlay. */
export type LoadResultsInput = StoredLoadResult[] | LoadResultsRun[];

/** The percentiles the Istio data-plane charts are drawn at. */
export const LOAD_PERCENTILES = [50, 90, 99] as const;
export type LoadPercentile = (typeof LOAD_PERCENTILES)[number];

/** The 500k-RPS Istio test held P99 under 5x the median. */
export const DEFAULT_TAIL_BAND_LIMIT = 5;

/** The colour of one run's lines when it is given without one. */
export const DEFAULT_RUN_COLOR = '#2f5fd0';

export const BASELINE_MODE = 'baseline';

/** The order the Istio benchmark reads its modes in; other modes follow alphabetically. */
const MODE_ORDER = ['baseline', 'serveronly', 'clientonly', 'both'];

/** One run: each mode its own colour (both in the run's colour), baseline dashed. */
const MODE_COLORS: Record<string, string> = {
  baseline: '#374151',
  serveronly: '#d97706',
  clientonly: '#7c3aed',
};
const OTHER_COLORS = ['#0891b2', '#be185d', '#65a30d', '#9333ea', '#b45309', '#0f766e'];

/** Several runs: the run's colour, each mode its own dash (both solid). */
const MODE_DASHES: Record<string, string> = {
  both: '',
  serveronly: '6 3',
  clientonly: '2 3',
  baseline: '1 4',
};
const OTHER_DASH = '8 3 2 3';

function isRunList(input: LoadResultsInput): input is LoadResultsRun[] {
  return input.length > 0 && input.every((x) => 'results' in x);
}

export function asRuns(input: LoadResultsInput): LoadResultsRun[] {
  if (input.length === 0) return [];
  if (isRunList(input)) return input;
  return [{ label: '', color: DEFAULT_RUN_COLOR, results: input as StoredLoadResult[] }];
}

export function modeRank(mode: string): number {
  const i = MODE_ORDER.indexOf(mode);
  return i < 0 ? MODE_ORDER.length : i;
}

export function sortModes(modes: Iterable<string>): string[] {
  return [...new Set(modes)].sort((a, b) => modeRank(a) - modeRank(b) || a.localeCompare(b));
}

/** The nearest-rank percentile as the source stated it; null when the source did not. */
export function percentileMs(result: Pick<StoredLoadResult, 'percentiles'>, p: number) {
  return result.percentiles.find((x) => x.p === p)?.ms ?? null;
}

/** The same percentile as a table cell shows it: "~" when an estimate, with its bound. */
export function markedPercentile(
  result: Pick<StoredLoadResult, 'percentiles'>,
  p: number,
): MarkedPercentile {
  const x = result.percentiles.find((y) => y.p === p);
  return markMsPercentile(x?.ms, x);
}

/** A difference of two percentiles is an estimate when either is. */
export function fromEstimate(...marked: MarkedPercentile[]): boolean {
  return marked.some((m) => m.certainty === 'estimate');
}

// --- Request rates ---

export interface RateGroup {
  key: string;
  /** The target rate, or the achieved rate rounded to two digits when the runner set none. */
  rps: number | null;
  kind: 'target' | 'achieved' | 'unknown';
  label: string;
  points: number;
  /** Distinct (run, mode, connections): how much of a latency-vs-connections sweep it holds. */
  sweepPoints: number;
}

const rpsFormat = new Intl.NumberFormat('en-US', { maximumFractionDigits: 2 });
export const formatRps = (rps: number) => rpsFormat.format(rps);

/** Two significant digits: 998.2 -> 1000, 1493 -> 1500, 0.5 -> 0.5. */
export function roundRate(rps: number): number {
  if (!(rps > 0)) return 0;
  return Number(rps.toPrecision(2));
}

/**
 * The rate a point was run at: its target, or (a sweep that set no target, e.g. Istio's perf
 * CSV) its achieved rate rounded, so that the points of one step fall together.
 */
export function rateOf(
  r: Pick<StoredLoadResult, 'targetRps' | 'achievedRps'>,
): Omit<RateGroup, 'points' | 'sweepPoints'> {
  if (r.targetRps !== null) {
    return {
      key: `target:${r.targetRps}`,
      rps: r.targetRps,
      kind: 'target',
      label: `${formatRps(r.targetRps)} RPS`,
    };
  }
  if (r.achievedRps !== null) {
    const rps = roundRate(r.achievedRps);
    return {
      key: `achieved:${rps}`,
      rps,
      kind: 'achieved',
      label: `≈${formatRps(rps)} RPS achieved (no target)`,
    };
  }
  return { key: 'unknown', rps: null, kind: 'unknown', label: 'rate unknown' };
}

/** The rates the runs were loaded at, slowest first; the unknown rate last. */
export function rateGroups(runs: LoadResultsRun[]): RateGroup[] {
  const groups = new Map<string, RateGroup & { sweep: Set<string> }>();
  runs.forEach((run, i) => {
    for (const r of run.results) {
      const rate = rateOf(r);
      let g = groups.get(rate.key);
      if (!g) {
        g = { ...rate, points: 0, sweepPoints: 0, sweep: new Set() };
        groups.set(rate.key, g);
      }
      g.points++;
      if (r.connections !== null && r.connections > 0) {
        g.sweep.add(`${i}\u0000${r.mode}\u0000${r.connections}`);
      }
    }
  });
  return [...groups.values()]
    .map(({ sweep, ...g }) => ({ ...g, sweepPoints: sweep.size }))
    .sort(
      (a, b) =>
        (a.rps === null ? 1 : 0) - (b.rps === null ? 1 : 0) ||
        (a.rps ?? 0) - (b.rps ?? 0) ||
        a.kind.localeCompare(b.kind),
    );
}

/** The rate to show first: the one holding the most of a connections sweep, then the most points. */
export function defaultRateKey(groups: RateGroup[]): string | null {
  let best: RateGroup | null = null;
  for (const g of groups) {
    if (
      !best ||
      g.sweepPoints > best.sweepPoints ||
      (g.sweepPoints === best.sweepPoints && g.points > best.points)
    ) {
      best = g;
    }
  }
  return best?.key ?? null;
}

// --- Series and axes ---

export interface SeriesSpec {
  key: string;
  label: string;
  color: string;
  /** SVG stroke-dasharray; '' for solid. */
  dash: string;
}

export interface NumberAxis {
  scale: 'linear' | 'log';
  domain: [number, number];
  ticks: number[];
}

/** A row per x value: `x`, then each series' value by its key (null: no point there). */
export type SeriesRow = { x: number } & Record<string, number | boolean | null>;

export interface PreparedLines {
  series: SeriesSpec[];
  rows: SeriesRow[];
  x: NumberAxis;
  y: NumberAxis;
}

/** The key under which a row says that a series' point there is marked (e.g. over a limit). */
export const markKey = (seriesKey: string) => `${seriesKey}:mark`;

/** A log2-looking connections axis: a tick on each count there is, a little room at both ends. */
export function connectionsAxis(values: number[]): NumberAxis | null {
  const ticks = [...new Set(values.filter((v) => v > 0))].sort((a, b) => a - b);
  const first = ticks[0];
  const last = ticks[ticks.length - 1];
  if (first === undefined || last === undefined) return null;
  const pad = first === last ? 2 : 1.25;
  return { scale: 'log', domain: [first / pad, last * pad], ticks };
}

/** A linear axis from 0 (or below, for negative values) to a round number above the largest. */
export function valueAxis(values: number[], tickCount = 5): NumberAxis {
  const finite = values.filter((v) => Number.isFinite(v));
  const max = Math.max(0, ...finite);
  const min = Math.min(0, ...finite);
  const top = max > 0 ? niceCeil(max) : min < 0 ? 0 : 1;
  const bottom = min < 0 ? -niceCeil(-min) : 0;
  return { scale: 'linear', domain: [bottom, top], ticks: linearTicks(bottom, top, tickCount) };
}

function modeStyle(
  mode: string,
  run: LoadResultsRun,
  overlay: boolean,
  others: string[],
): Pick<SeriesSpec, 'color' | 'dash'> {
  if (overlay) return { color: run.color, dash: MODE_DASHES[mode] ?? OTHER_DASH };
  if (mode === 'both') return { color: run.color, dash: '' };
  const known = MODE_COLORS[mode];
  if (known) return { color: known, dash: mode === BASELINE_MODE ? '4 3' : '' };
  const i = others.indexOf(mode);
  return { color: OTHER_COLORS[i % OTHER_COLORS.length] as string, dash: '' };
}

const seriesKey = (runIndex: number, ...parts: (string | number)[]) =>
  `s${runIndex}_${parts.join('_').replace(/[^A-Za-z0-9_-]/g, '-')}`;

// --- Points at one rate ---

export interface RatePoint {
  runIndex: number;
  run: LoadResultsRun;
  result: StoredLoadResult;
  connections: number;
}

/**
 * The points at one rate that have a connection count, one per (run, mode, connections):
 * a repeated point (the same file posted twice, a re-run) is replaced by the later import.
 */
export function pointsAtRate(
  runs: LoadResultsRun[],
  rateKey: string | null,
): { points: RatePoint[]; superseded: number } {
  const latest = new Map<string, RatePoint>();
  let superseded = 0;
  runs.forEach((run, runIndex) => {
    for (const result of run.results) {
      if (rateKey === null || rateOf(result).key !== rateKey) continue;
      if (result.connections === null || result.connections <= 0) continue;
      const id = `${runIndex}\u0000${result.mode}\u0000${result.connections}`;
      const seen = latest.get(id);
      if (seen) superseded++;
      if (!seen || result.id > seen.result.id) {
        latest.set(id, { runIndex, run, result, connections: result.connections });
      }
    }
  });
  const points = [...latest.values()].sort(
    (a, b) =>
      a.runIndex - b.runIndex ||
      modeRank(a.result.mode) - modeRank(b.result.mode) ||
      a.result.mode.localeCompare(b.result.mode) ||
      a.connections - b.connections,
  );
  return { points, superseded };
}

/** One series per (run, mode), in mode order, styled for one run or an overlay. */
function modeSeries(runs: LoadResultsRun[], points: RatePoint[]): Map<string, SeriesSpec> {
  const overlay = runs.length > 1;
  // From every point of every run, so that a mode keeps its colour from chart to chart.
  const others = sortModes(runs.flatMap((run) => run.results.map((r) => r.mode))).filter(
    (m) => !(m in MODE_COLORS) && m !== 'both',
  );
  const series = new Map<string, SeriesSpec>();
  for (const p of points) {
    const key = seriesKey(p.runIndex, p.result.mode);
    if (series.has(key)) continue;
    series.set(key, {
      key,
      label: overlay ? `${p.run.label} · ${p.result.mode}` : p.result.mode,
      ...modeStyle(p.result.mode, p.run, overlay, others),
    });
  }
  return series;
}

function linesByConnections(
  runs: LoadResultsRun[],
  values: { point: RatePoint; value: number; mark?: boolean }[],
  y: NumberAxis,
): PreparedLines | null {
  const x = connectionsAxis(values.map((v) => v.point.connections));
  if (!x) return null;
  const specs = modeSeries(
    runs,
    values.map((v) => v.point),
  );
  const rows = new Map<number, SeriesRow>();
  for (const v of values) {
    const key = seriesKey(v.point.runIndex, v.point.result.mode);
    let row = rows.get(v.point.connections);
    if (!row) {
      row = { x: v.point.connections };
      for (const s of specs.keys()) row[s] = null;
      rows.set(v.point.connections, row);
    }
    row[key] = v.value;
    if (v.mark !== undefined) row[markKey(key)] = v.mark;
  }
  return {
    series: [...specs.values()],
    rows: [...rows.values()].sort((a, b) => a.x - b.x),
    x,
    y,
  };
}

// --- (a) Latency vs connections ---

export interface LatencyRow {
  run: string;
  mode: string;
  connections: number;
  targetRps: number | null;
  achievedRps: number | null;
  p50: number | null;
  p90: number | null;
  p99: number | null;
  /** The same percentiles as their cells show them (mark and bound). */
  marked: { p50: MarkedPercentile; p90: MarkedPercentile; p99: MarkedPercentile };
  requests: number | null;
}

export interface PreparedLatency {
  lines: PreparedLines | null;
  table: LatencyRow[];
  superseded: number;
}

export function prepareLatencyVsConnections(
  runs: LoadResultsRun[],
  rateKey: string | null,
  percentile: number,
): PreparedLatency {
  const { points, superseded } = pointsAtRate(runs, rateKey);
  const values = points.flatMap((point) => {
    const value = percentileMs(point.result, percentile);
    return value === null ? [] : [{ point, value }];
  });
  return {
    lines: linesByConnections(runs, values, valueAxis(values.map((v) => v.value))),
    table: points.map(({ run, result: r, connections }) => ({
      run: run.label,
      mode: r.mode,
      connections,
      targetRps: r.targetRps,
      achievedRps: r.achievedRps,
      p50: percentileMs(r, 50),
      p90: percentileMs(r, 90),
      p99: percentileMs(r, 99),
      marked: {
        p50: markedPercentile(r, 50),
        p90: markedPercentile(r, 90),
        p99: markedPercentile(r, 99),
      },
      requests: r.requests,
    })),
    superseded,
  };
}

// --- (b) Added latency over baseline ---

export interface AddedLatencyRow {
  run: string;
  mode: string;
  connections: number;
  ms: number;
  baselineMs: number;
  addedMs: number;
  /** Added latency as a share of the baseline; null when the baseline is 0. */
  addedFraction: number | null;
  /** The point's and the baseline's percentile as their cells show them. */
  marked: { ms: MarkedPercentile; baselineMs: MarkedPercentile };
  /** The added latency is a difference of estimates (either percentile is one). */
  addedFromEstimate: boolean;
}

export interface PreparedAddedLatency {
  lines: PreparedLines | null;
  table: AddedLatencyRow[];
  /** Points at this rate with a percentile but no baseline at the same connections. */
  withoutBaseline: number;
  hasBaseline: boolean;
}

/**
 * What the sidecars add: each point's percentile minus that of the same run's baseline point
 * at the same connections and the same rate (Istio: "subtract base from both").
 */
export function prepareAddedLatency(
  runs: LoadResultsRun[],
  rateKey: string | null,
  percentile: number,
): PreparedAddedLatency {
  const { points } = pointsAtRate(runs, rateKey);
  const baselines = new Map<string, { ms: number; marked: MarkedPercentile }>();
  for (const p of points) {
    const ms = percentileMs(p.result, percentile);
    if (p.result.mode === BASELINE_MODE && ms !== null) {
      baselines.set(`${p.runIndex}\u0000${p.connections}`, {
        ms,
        marked: markedPercentile(p.result, percentile),
      });
    }
  }
  const table: AddedLatencyRow[] = [];
  const values: { point: RatePoint; value: number }[] = [];
  let withoutBaseline = 0;
  for (const point of points) {
    if (point.result.mode === BASELINE_MODE) continue;
    const ms = percentileMs(point.result, percentile);
    if (ms === null) continue;
    const baseline = baselines.get(`${point.runIndex}\u0000${point.connections}`);
    if (baseline === undefined) {
      withoutBaseline++;
      continue;
    }
    const baselineMs = baseline.ms;
    const addedMs = ms - baselineMs;
    const marked = { ms: markedPercentile(point.result, percentile), baselineMs: baseline.marked };
    values.push({ point, value: addedMs });
    table.push({
      run: point.run.label,
      mode: point.result.mode,
      connections: point.connections,
      ms,
      baselineMs,
      addedMs,
      addedFraction: baselineMs > 0 ? addedMs / baselineMs : null,
      marked,
      addedFromEstimate: fromEstimate(marked.ms, marked.baselineMs),
    });
  }
  return {
    lines: linesByConnections(runs, values, valueAxis(values.map((v) => v.value))),
    table,
    withoutBaseline,
    hasBaseline: baselines.size > 0,
  };
}

// --- (c) Proxy CPU and memory vs rate ---

export interface ResourceRow {
  run: string;
  mode: string;
  connections: number | null;
  rps: number;
  clientCpuCores: number | null;
  serverCpuCores: number | null;
  clientMemMiB: number | null;
  serverMemMiB: number | null;
}

export interface PreparedResources {
  cpu: PreparedLines | null;
  memory: PreparedLines | null;
  table: ResourceRow[];
  /** What all the lines share and their labels leave out: "both · 16 connections". */
  context: string;
}

const SIDES = [
  { side: 'client', cpu: 'clientCpuCores', mem: 'clientMemMiB', dash: '' },
  { side: 'server', cpu: 'serverCpuCores', mem: 'serverMemMiB', dash: '6 3' },
] as const;

/**
 * Proxy CPU (cores) and memory (MiB) against the rate achieved (the target when the runner
 * reports none), client and server side, from the points that measured them. One line per
 * run, mode, connection count and side; the label names only what differs between lines.
 */
export function prepareProxyResources(runs: LoadResultsRun[]): PreparedResources {
  const overlay = runs.length > 1;
  type Measured = { runIndex: number; run: LoadResultsRun; r: StoredLoadResult; rps: number };
  const latest = new Map<string, Measured>();
  runs.forEach((run, runIndex) => {
    for (const r of run.results) {
      const rps = r.achievedRps ?? r.targetRps;
      if (rps === null) continue;
      if (SIDES.every((s) => r[s.cpu] === null && r[s.mem] === null)) continue;
      const id = `${runIndex}\u0000${r.mode}\u0000${r.connections}\u0000${rps}`;
      const seen = latest.get(id);
      if (!seen || r.id > seen.r.id) latest.set(id, { runIndex, run, r, rps });
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
        const value = m.r[s[metric]];
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
  return {
    context,
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
    })),
  };
}

// --- (d) Achieved vs target rate ---

export interface ThroughputRow {
  run: string;
  mode: string;
  connections: number;
  targetRps: number;
  achievedRps: number;
  /** achieved / target. */
  fraction: number;
}

export interface PreparedThroughput {
  lines: PreparedLines | null;
  table: ThroughputRow[];
  /** Set when the rate has no target to measure against. */
  noTarget: boolean;
}

/**
 * The % of the target rate axis: from 95 % (lower when a point fell further) to 100 % or
 * above, with a little room over the top so that the 100 % line does not sit on the edge.
 */
export function percentOfTargetAxis(percents: number[]): NumberAxis {
  const min = Math.min(100, ...percents);
  const max = Math.max(100, ...percents);
  const bottom = Math.max(0, Math.min(95, Math.floor(min / 5) * 5));
  const top = Math.ceil(max);
  return {
    scale: 'linear',
    domain: [bottom, top + (top - bottom) * 0.04],
    ticks: linearTicks(bottom, top, 5),
  };
}

export function prepareThroughput(
  runs: LoadResultsRun[],
  rateKey: string | null,
): PreparedThroughput {
  const { points } = pointsAtRate(runs, rateKey);
  const table: ThroughputRow[] = [];
  const values: { point: RatePoint; value: number }[] = [];
  for (const point of points) {
    const { targetRps, achievedRps } = point.result;
    if (targetRps === null || achievedRps === null || !(targetRps > 0)) continue;
    const fraction = achievedRps / targetRps;
    values.push({ point, value: fraction * 100 });
    table.push({
      run: point.run.label,
      mode: point.result.mode,
      connections: point.connections,
      targetRps,
      achievedRps,
      fraction,
    });
  }
  return {
    lines: linesByConnections(runs, values, percentOfTargetAxis(values.map((v) => v.value))),
    table,
    noTarget: points.length > 0 && values.length === 0,
  };
}

// --- (e) Errors ---

export interface ErrorRow {
  run: string;
  mode: string;
  connections: number;
  requests: number | null;
  errors: number;
  /** errors / requests (may pass 1: runners count requests that never got a response). */
  fraction: number | null;
  byCode: { code: string; count: number }[];
}

export interface PreparedErrors {
  /** Bars: a row per connection count, one bar per (run, mode). */
  bars: { series: SeriesSpec[]; rows: SeriesRow[]; y: NumberAxis } | null;
  table: ErrorRow[];
  total: number;
}

export function errorCodes(byCode: Record<string, number>): { code: string; count: number }[] {
  return Object.entries(byCode)
    .map(([code, count]) => ({ code, count }))
    .sort((a, b) => b.count - a.count || a.code.localeCompare(b.code));
}

export function prepareErrors(runs: LoadResultsRun[], rateKey: string | null): PreparedErrors {
  const { points } = pointsAtRate(runs, rateKey);
  const counted = points.filter((p) => p.result.errors !== null);
  const table = counted.map(({ run, result: r, connections }) => ({
    run: run.label,
    mode: r.mode,
    connections,
    requests: r.requests,
    errors: r.errors as number,
    fraction: r.requests ? (r.errors as number) / r.requests : null,
    byCode: errorCodes(r.errorsByCode),
  }));
  const total = table.reduce((sum, r) => sum + r.errors, 0);
  if (counted.length === 0) return { bars: null, table, total };
  const specs = modeSeries(runs, counted);
  const rows = new Map<number, SeriesRow>();
  for (const p of counted) {
    let row = rows.get(p.connections);
    if (!row) {
      row = { x: p.connections };
      for (const k of specs.keys()) row[k] = null;
      rows.set(p.connections, row);
    }
    row[seriesKey(p.runIndex, p.result.mode)] = p.result.errors;
  }
  return {
    bars: {
      series: [...specs.values()],
      rows: [...rows.values()].sort((a, b) => a.x - b.x),
      y: valueAxis(
        counted.map((p) => p.result.errors as number),
        4,
      ),
    },
    table,
    total,
  };
}

// --- (f) Tail band: P99 / P50 ---

export interface TailBandRow {
  run: string;
  mode: string;
  connections: number;
  p50: number;
  p99: number;
  marked: { p50: MarkedPercentile; p99: MarkedPercentile };
  ratio: number;
  /** The ratio is taken from an estimate (P50 or P99 is one). */
  ratioFromEstimate: boolean;
  /** P99 reached limit x P50 (the test requires P99 to stay under it). */
  over: boolean;
}

export interface PreparedTailBand {
  lines: PreparedLines | null;
  table: TailBandRow[];
  over: number;
}

export function prepareTailBand(
  runs: LoadResultsRun[],
  rateKey: string | null,
  limit: number,
): PreparedTailBand {
  const { points } = pointsAtRate(runs, rateKey);
  const table: TailBandRow[] = [];
  const values: { point: RatePoint; value: number; mark: boolean }[] = [];
  for (const point of points) {
    const p50 = percentileMs(point.result, 50);
    const p99 = percentileMs(point.result, 99);
    if (p50 === null || p99 === null || !(p50 > 0)) continue;
    const ratio = p99 / p50;
    const over = ratio >= limit;
    values.push({ point, value: ratio, mark: over });
    const marked = {
      p50: markedPercentile(point.result, 50),
      p99: markedPercentile(point.result, 99),
    };
    table.push({
      run: point.run.label,
      mode: point.result.mode,
      connections: point.connections,
      p50,
      p99,
      marked,
      ratio,
      ratioFromEstimate: fromEstimate(marked.p50, marked.p99),
      over,
    });
  }
  const ratios = values.map((v) => v.value);
  // Room above the limit line, so that it never sits on the chart's top edge.
  const y = valueAxis([...ratios, limit > 0 ? limit * 1.1 : 0]);
  return {
    lines: linesByConnections(runs, values, y),
    table,
    over: table.filter((r) => r.over).length,
  };
}

// --- How the numbers read ---

const sig3 = new Intl.NumberFormat('en-US', { maximumSignificantDigits: 3 });
const fixed1 = new Intl.NumberFormat('en-US', {
  minimumFractionDigits: 1,
  maximumFractionDigits: 1,
});

/** Cores to three significant digits: 0.499799 -> "0.5", 2.080446 -> "2.08". */
export function formatCores(cores: number | null | undefined): string {
  return cores === null || cores === undefined || !Number.isFinite(cores)
    ? '—'
    : sig3.format(cores);
}

/** MiB with one decimal: 64.5 -> "64.5". */
export function formatMiB(mib: number | null | undefined): string {
  return mib === null || mib === undefined || !Number.isFinite(mib) ? '—' : fixed1.format(mib);
}

/** A ratio such as P99 / P50: 2.6135 -> "2.6×". */
export function formatRatio(ratio: number | null | undefined): string {
  return ratio === null || ratio === undefined || !Number.isFinite(ratio)
    ? '—'
    : `${fixed1.format(ratio)}×`;
}

/** A rate in the tables: "1,000", "998.22". */
export function formatRpsCell(rps: number | null | undefined): string {
  return rps === null || rps === undefined || !Number.isFinite(rps) ? '—' : formatRps(rps);
}
