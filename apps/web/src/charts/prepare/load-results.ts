// Data-plane load results, the part every panel shares: one run or several as the input,
// modes in the Istio benchmark's order and colours, request rates, axes, and the points at one
// rate drawn as a line per (run, mode, configuration) against connections. Points of one
// configuration repeated (a re-run, a file posted twice) are one point: their median, with the
// range beside it, never one of them silently.
import { lowerMedianRank } from '@meshbench/api/nearest-rank';
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
export const OTHER_COLORS = ['#0891b2', '#be185d', '#65a30d', '#9333ea', '#b45309', '#0f766e'];

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

/**
 * A point's configuration: what its label says beyond mode, rate and connections (Istio's perf
 * CSV: "none_mtls", "v2-stats-nullvm"...), kept by the API as the label `config`; null: none.
 * Points of different configurations are different series.
 */
export const configOf = (r: Pick<StoredLoadResult, 'labels'>): string | null =>
  r.labels.config ?? null;

/** A series' name within its run: the mode, and the configuration when the point has one. */
export const seriesName = (mode: string, config: string | null) =>
  config === null ? mode : `${mode} · ${config}`;

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

// --- The rows a chart draws ---

/**
 * The rows that stand for whole steps: not one generator's share (the step's merged row, generator
 * null, stands for it), and not one request name's part of a step when the run has the step's
 * total (Locust's per-name rows beside its "Aggregated" row). Drawn on one line with the totals,
 * a name's row would join a line at its own, smaller rate.
 */
export function stepRows(results: readonly StoredLoadResult[]): StoredLoadResult[] {
  const totals = results.some((r) => r.labels.aggregated === 'true');
  return results.filter(
    (r) =>
      r.generator === null &&
      !(totals && r.labels.aggregated !== 'true' && r.labels.name !== undefined),
  );
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
  /** The most connection counts one (run, mode) has here: the points of its longest line. */
  longestLine: number;
  /** The highest rate of its points, the target else the achieved rate, unrounded. */
  topRps: number | null;
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
): Omit<RateGroup, 'points' | 'sweepPoints' | 'longestLine' | 'topRps'> {
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
  const groups = new Map<
    string,
    Omit<RateGroup, 'sweepPoints' | 'longestLine'> & { sweep: Set<string> }
  >();
  runs.forEach((run, i) => {
    for (const r of stepRows(run.results)) {
      const rate = rateOf(r);
      let g = groups.get(rate.key);
      if (!g) {
        g = { ...rate, points: 0, topRps: null, sweep: new Set() };
        groups.set(rate.key, g);
      }
      g.points++;
      const rps = r.targetRps ?? r.achievedRps;
      if (rps !== null && (g.topRps === null || rps > g.topRps)) g.topRps = rps;
      if (r.connections !== null && r.connections > 0) {
        g.sweep.add(`${i}\u0000${r.mode}\u0000${r.connections}`);
      }
    }
  });
  return [...groups.values()]
    .map(({ sweep, ...g }) => ({ ...g, sweepPoints: sweep.size, longestLine: longestLine(sweep) }))
    .sort(
      (a, b) =>
        (a.rps === null ? 1 : 0) - (b.rps === null ? 1 : 0) ||
        (a.rps ?? 0) - (b.rps ?? 0) ||
        a.kind.localeCompare(b.kind),
    );
}

/**
 * The points of the longest line in a sweep: the most members any one (run, mode) has. The sweep's
 * members are `run\u0000mode\u0000x` strings, as the groups build them.
 */
function longestLine(sweep: Set<string>): number {
  const perLine = new Map<string, number>();
  for (const member of sweep) {
    const line = member.slice(0, member.lastIndexOf('\u0000'));
    perLine.set(line, (perLine.get(line) ?? 0) + 1);
  }
  return Math.max(0, ...perLine.values());
}

type SliceChoice = Pick<RateGroup, 'key' | 'points' | 'sweepPoints' | 'longestLine'> & {
  kind?: RateGroup['kind'];
  topRps?: number | null;
};

/**
 * Whether a slice holds a sweep: a line of two points or more. Achieved rates are grouped by
 * rounding, so two steps of a ramp can fall into one group by chance (Locust's 25,000 RPS
 * group held a 62,500- and a 1,250,000-user stage): without a target, a sweep takes three.
 */
export const isSweep = (g: SliceChoice) => g.longestLine >= (g.kind === 'achieved' ? 3 : 2);

/**
 * The slice to show first. When slices hold a sweep, the one holding the most of it, then the
 * most points. Otherwise (a staged run, whose steps each fall at their own rate) the top rate,
 * the rate the run's headline is read at (the target, else the achieved rate), then the most
 * points.
 */
export function defaultRateKey(groups: SliceChoice[]): string | null {
  const sweeps = groups.filter(isSweep);
  const pool = sweeps.length > 0 ? sweeps : groups;
  // Among sweeps every slice ranks alike on the rate; otherwise the top rate comes first.
  const top = (g: SliceChoice) => (sweeps.length > 0 ? 0 : (g.topRps ?? Number.NEGATIVE_INFINITY));
  let best: SliceChoice | null = null;
  for (const g of pool) {
    if (
      !best ||
      top(g) > top(best) ||
      (top(g) === top(best) &&
        (g.sweepPoints > best.sweepPoints ||
          (g.sweepPoints === best.sweepPoints && g.points > best.points)))
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

export const seriesKey = (runIndex: number, ...parts: (string | number)[]) =>
  `s${runIndex}_${parts.join('_').replace(/[^A-Za-z0-9_-]/g, '-')}`;

// --- Slices: the points of one chart ---

/**
 * What a latency chart runs along: concurrent connections at one request rate (the Istio
 * guide's figures), or the rate achieved at one connection count (the latency-vs-throughput
 * curve and its knee).
 */
export const LOAD_AXES = ['connections', 'rps'] as const;
export type LoadAxis = (typeof LOAD_AXES)[number];

/** The points of one chart: along `axis`, those in the group `key` (a rate, or connections). */
export interface LoadSlice {
  axis: LoadAxis;
  key: string | null;
}

/** A rate key alone (as before the axis switch) is a slice along connections. */
export type SliceArg = LoadSlice | string | null;

export function toSlice(arg: SliceArg): LoadSlice {
  return arg !== null && typeof arg === 'object' ? arg : { axis: 'connections', key: arg };
}

/** Where a point lies along the rate axis: the rate achieved, the target when none is reported. */
export function rpsOf(r: Pick<StoredLoadResult, 'targetRps' | 'achievedRps'>): number | null {
  return r.achievedRps ?? r.targetRps;
}

export const connectionsKey = (connections: number | null) =>
  connections !== null && connections > 0 ? `connections:${connections}` : 'connections:none';

/** A group of points at one connection count: the slices of the rate axis. */
export interface ConnectionsGroup {
  key: string;
  connections: number | null;
  label: string;
  points: number;
  /** Distinct (run, mode, rate): how much of a latency-vs-rate sweep it holds. */
  sweepPoints: number;
  /** The most rates one (run, mode) has here: the points of its longest line. */
  longestLine: number;
}

/** The connection counts the runs were loaded with, fewest first; unknown last. */
export function connectionsGroups(runs: LoadResultsRun[]): ConnectionsGroup[] {
  const groups = new Map<
    string,
    Omit<ConnectionsGroup, 'sweepPoints' | 'longestLine'> & { sweep: Set<string> }
  >();
  runs.forEach((run, i) => {
    for (const r of stepRows(run.results)) {
      const c = r.connections !== null && r.connections > 0 ? r.connections : null;
      const key = connectionsKey(c);
      let g = groups.get(key);
      if (!g) {
        g = {
          key,
          connections: c,
          label: c === null ? 'connections unknown' : `${c} connection${c === 1 ? '' : 's'}`,
          points: 0,
          sweep: new Set(),
        };
        groups.set(key, g);
      }
      g.points++;
      const rps = rpsOf(r);
      if (rps !== null) g.sweep.add(`${i}\u0000${r.mode}\u0000${rps}`);
    }
  });
  return [...groups.values()]
    .map(({ sweep, ...g }) => ({ ...g, sweepPoints: sweep.size, longestLine: longestLine(sweep) }))
    .sort(
      (a, b) =>
        (a.connections === null ? 1 : 0) - (b.connections === null ? 1 : 0) ||
        (a.connections ?? 0) - (b.connections ?? 0),
    );
}

/** The groups a slice of `axis` can take, with the one to show first. */
export function sliceGroups(
  runs: LoadResultsRun[],
  axis: LoadAxis,
): {
  groups: { key: string; label: string; points: number; sweepPoints: number }[];
  first: string | null;
} {
  const groups = axis === 'connections' ? rateGroups(runs) : connectionsGroups(runs);
  return { groups, first: defaultRateKey(groups) };
}

/** The slice to draw: the key asked for when the axis has it, else the axis' first. */
export function settleSlice(
  runs: LoadResultsRun[],
  axis: LoadAxis,
  key: string | null | undefined,
) {
  const { groups, first } = sliceGroups(runs, axis);
  const found = groups.find((g) => g.key === key);
  const settled = found ?? groups.find((g) => g.key === first);
  return { slice: { axis, key: settled?.key ?? null }, groups, label: settled?.label ?? 'nothing' };
}

/**
 * The axis to open on: along connections when the fullest rate holds a sweep of two counts or
 * more, else along the rate (a run of rate steps at one connection count: one dot per chart
 * along connections).
 */
export function defaultAxis(runs: LoadResultsRun[]): LoadAxis {
  const longest = (axis: LoadAxis) => {
    const { groups, first } = sliceGroups(runs, axis);
    const slice = { axis, key: first };
    const perSeries = new Map<string, Set<number>>();
    for (const p of pointsInSlice(runs, slice).points) {
      const id = `${p.runIndex}\u0000${p.series}`;
      const xs = perSeries.get(id) ?? new Set();
      xs.add(p.x);
      perSeries.set(id, xs);
    }
    return groups.length === 0 ? 0 : Math.max(0, ...[...perSeries.values()].map((s) => s.size));
  };
  const byConnections = longest('connections');
  return byConnections >= 2 || byConnections >= longest('rps') ? 'connections' : 'rps';
}

// --- Points of one slice ---

export interface RatePoint {
  runIndex: number;
  run: LoadResultsRun;
  /** The point: its one result, or the median of its repeats (medianOfRepeats). */
  result: StoredLoadResult;
  connections: number;
  /** Where the point lies along the slice's axis: its connections, or its rate. */
  x: number;
  config: string | null;
  /** The series within the run: mode and configuration (seriesName). */
  series: string;
  /** Every result at the point (more than one: repeats), in import order. */
  repeats: StoredLoadResult[];
}

/** The lower median (nearest rank 50) of some values; null when there are none. */
function lowerMedian(values: (number | null)[]): number | null {
  const v = values.filter((x): x is number => x !== null).sort((a, b) => a - b);
  return v.length === 0 ? null : (v[lowerMedianRank(v.length) - 1] as number);
}

const MEDIAN_FIELDS = [
  'achievedRps',
  'durationMs',
  'minMs',
  'meanMs',
  'maxMs',
  'stdDevMs',
  'clientCpuCores',
  'serverCpuCores',
  'clientMemMiB',
  'serverMemMiB',
  'clientCpuCoresMax',
  'serverCpuCoresMax',
  'clientMemMiBMax',
  'serverMemMiBMax',
] as const;

/**
 * Repeats of one point as one: each percentile and measure the lower median (nearest rank 50)
 * of the repeats that have it (a percentile keeps that repeat's own bound), requests and
 * errors added up (so an error rate pools them), the newest repeat's other fields.
 */
export function medianOfRepeats(rows: readonly StoredLoadResult[]): StoredLoadResult {
  const last = rows[rows.length - 1] as StoredLoadResult;
  if (rows.length === 1) return last;
  const ps = [...new Set(rows.flatMap((r) => r.percentiles.map((q) => q.p)))].sort((a, b) => a - b);
  const percentiles = ps.map((p) => {
    const values = rows
      .map((r) => r.percentiles.find((q) => q.p === p))
      .filter((q): q is NonNullable<typeof q> => q !== undefined)
      .sort((a, b) => a.ms - b.ms);
    return values[lowerMedianRank(values.length) - 1] as (typeof values)[number];
  });
  const sum = (k: 'requests' | 'errors') =>
    rows.every((r) => r[k] === null) ? null : rows.reduce((t, r) => t + (r[k] ?? 0), 0);
  const errorsByCode: Record<string, number> = {};
  for (const r of rows)
    for (const [code, n] of Object.entries(r.errorsByCode))
      errorsByCode[code] = (errorsByCode[code] ?? 0) + n;
  const out: StoredLoadResult = {
    ...last,
    percentiles,
    requests: sum('requests'),
    errors: sum('errors'),
    errorsByCode,
    histogram: null,
  };
  for (const k of MEDIAN_FIELDS) out[k] = lowerMedian(rows.map((r) => r[k]));
  return out;
}

/** The lowest and highest of a percentile over a point's repeats; null without repeats. */
export function repeatRange(
  point: Pick<RatePoint, 'repeats'>,
  p: number,
): { min: number; max: number } | null {
  if (point.repeats.length < 2) return null;
  const ms = point.repeats.map((r) => percentileMs(r, p)).filter((v): v is number => v !== null);
  return ms.length === 0 ? null : { min: Math.min(...ms), max: Math.max(...ms) };
}

/**
 * The points of one slice, one per (run, mode, configuration, x): along connections those at
 * one rate that have a connection count, along the rate those at one connection count that
 * have a rate. A repeated point (the same file posted twice, a re-run) is kept as repeats: the
 * point is their median (medianOfRepeats), `repeated` counts such points.
 */
export function pointsInSlice(
  runs: LoadResultsRun[],
  arg: SliceArg,
): { points: RatePoint[]; repeated: number } {
  const { axis, key } = toSlice(arg);
  const byId = new Map<string, Omit<RatePoint, 'result'>>();
  runs.forEach((run, runIndex) => {
    for (const result of stepRows(run.results)) {
      if (key === null) continue;
      let x: number | null;
      if (axis === 'connections') {
        if (rateOf(result).key !== key) continue;
        x = result.connections !== null && result.connections > 0 ? result.connections : null;
      } else {
        if (connectionsKey(result.connections) !== key) continue;
        x = rpsOf(result);
      }
      if (x === null) continue;
      const config = configOf(result);
      const id = `${runIndex}\u0000${result.mode}\u0000${config ?? ''}\u0000${x}`;
      const seen = byId.get(id);
      if (seen) seen.repeats.push(result);
      else
        byId.set(id, {
          runIndex,
          run,
          connections: result.connections ?? 0,
          x,
          config,
          series: seriesName(result.mode, config),
          repeats: [result],
        });
    }
  });
  const importOrder = (r: StoredLoadResult) => r.id ?? Number.POSITIVE_INFINITY;
  const points = [...byId.values()]
    .map((p) => {
      const repeats = [...p.repeats].sort((a, b) => importOrder(a) - importOrder(b));
      return { ...p, repeats, result: medianOfRepeats(repeats) };
    })
    .sort(
      (a, b) =>
        a.runIndex - b.runIndex ||
        modeRank(a.result.mode) - modeRank(b.result.mode) ||
        a.result.mode.localeCompare(b.result.mode) ||
        (a.config ?? '').localeCompare(b.config ?? '') ||
        a.x - b.x,
    );
  return { points, repeated: points.filter((p) => p.repeats.length > 1).length };
}

/** The points at one rate, along connections. */
export function pointsAtRate(runs: LoadResultsRun[], rateKey: string | null) {
  return pointsInSlice(runs, { axis: 'connections', key: rateKey });
}

/**
 * Where two points of one slice count as the same step: the same connections, or (along the
 * rate) the same rate to two digits, since two runs never achieve exactly the same one.
 */
export function stepOf(axis: LoadAxis, x: number): number {
  return axis === 'rps' ? roundRate(x) : x;
}

/**
 * A linear rate axis from 0 to a round number above the fastest point, with a little room past
 * it so that a point at the round number (1,000 RPS) does not sit on the chart's edge.
 */
export function rpsAxis(values: number[]): NumberAxis | null {
  const finite = values.filter((v) => Number.isFinite(v) && v >= 0);
  if (finite.length === 0) return null;
  const top = niceCeil(Math.max(...finite)) || 1;
  return { scale: 'linear', domain: [0, top * 1.04], ticks: linearTicks(0, top, 5) };
}

/** The key of a point's series: its run, mode and configuration. */
export const pointSeriesKey = (p: Pick<RatePoint, 'runIndex' | 'result' | 'config'>) =>
  p.config === null
    ? seriesKey(p.runIndex, p.result.mode)
    : seriesKey(p.runIndex, p.result.mode, p.config);

/** The configurations of the runs' points (steps, not generators' shares), by name. */
export function configsOf(runs: LoadResultsRun[]): string[] {
  const all = runs.flatMap((run) => stepRows(run.results).map((r) => configOf(r)));
  return [...new Set(all.filter((c): c is string => c !== null))].sort();
}

/**
 * One series per (run, mode, configuration), in mode order, styled for one run or an
 * overlay. One run of several configurations: each configuration its own colour, each mode
 * its own dash, so that two configurations of one mode never share a line's look.
 */
export function modeSeries(runs: LoadResultsRun[], points: RatePoint[]): Map<string, SeriesSpec> {
  const overlay = runs.length > 1;
  // From every point of every run, so that a mode keeps its colour from chart to chart.
  const others = sortModes(runs.flatMap((run) => run.results.map((r) => r.mode))).filter(
    (m) => !(m in MODE_COLORS) && m !== 'both',
  );
  const configs = configsOf(runs);
  const byConfig = !overlay && configs.length > 1;
  const series = new Map<string, SeriesSpec>();
  for (const p of points) {
    const key = pointSeriesKey(p);
    if (series.has(key)) continue;
    const style = byConfig
      ? {
          color: OTHER_COLORS[
            Math.max(0, configs.indexOf(p.config ?? '')) % OTHER_COLORS.length
          ] as string,
          dash: MODE_DASHES[p.result.mode] ?? OTHER_DASH,
        }
      : modeStyle(p.result.mode, p.run, overlay, others);
    series.set(key, {
      key,
      label: overlay ? `${p.run.label} · ${p.series}` : p.series,
      ...style,
    });
  }
  return series;
}

/** Lines along the slice's axis, a series per (run, mode, configuration). */
export function linesBySlice(
  runs: LoadResultsRun[],
  values: { point: RatePoint; value: number; mark?: boolean }[],
  y: NumberAxis,
  axis: LoadAxis = 'connections',
): PreparedLines | null {
  const xs = values.map((v) => v.point.x);
  const x = axis === 'connections' ? connectionsAxis(xs) : rpsAxis(xs);
  if (!x) return null;
  const specs = modeSeries(
    runs,
    values.map((v) => v.point),
  );
  const rows = new Map<number, SeriesRow>();
  for (const v of values) {
    const key = pointSeriesKey(v.point);
    let row = rows.get(v.point.x);
    if (!row) {
      row = { x: v.point.x };
      for (const s of specs.keys()) row[s] = null;
      rows.set(v.point.x, row);
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

/** Lines along connections (the slice's axis before the axis switch). */
export const linesByConnections = (
  runs: LoadResultsRun[],
  values: { point: RatePoint; value: number; mark?: boolean }[],
  y: NumberAxis,
) => linesBySlice(runs, values, y, 'connections');
