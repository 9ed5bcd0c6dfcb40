// Data-plane runs compared as small multiples: one chart per mode, one line per run in the
// run's colour (and dash), every chart on the same axes so that the modes compare too; and
// the numbers behind them, step by step, against the first run (the baseline).
import type { StoredLoadResult } from '@meshbench/schema';
import {
  connectionsAxis,
  type LoadAxis,
  type LoadResultsRun,
  type NumberAxis,
  type PreparedLines,
  pointsInSlice,
  type RatePoint,
  rpsAxis,
  type SeriesRow,
  type SeriesSpec,
  type SliceArg,
  sortModes,
  stepOf,
  toSlice,
  valueAxis,
} from './load-results.ts';

/** What a multiple draws of a point; null: nothing there. */
export type PointValue = (r: StoredLoadResult) => number | null;

export interface ModeMultiple {
  mode: string;
  /** null: no run has a value in this mode. */
  lines: PreparedLines | null;
}

export interface PreparedMultiples {
  multiples: ModeMultiple[];
  /** The runs' lines, as every multiple draws them: for one key above them all. */
  series: SeriesSpec[];
}

export const runKey = (runIndex: number) => `r${runIndex}`;

/** One chart per mode (in the Istio order), a line per run, shared x and y axes. */
export function prepareModeMultiples(
  runs: (LoadResultsRun & { dash?: string | undefined })[],
  sliceArg: SliceArg,
  value: PointValue,
  yAxis: (values: number[]) => NumberAxis = valueAxis,
): PreparedMultiples {
  const slice = toSlice(sliceArg);
  const { points } = pointsInSlice(runs, slice);
  const valued = points.flatMap((p) => {
    const v = value(p.result);
    return v === null || !Number.isFinite(v) ? [] : [{ p, v }];
  });
  const series = runs.map((run, i) => ({
    key: runKey(i),
    label: run.label,
    color: run.color,
    dash: run.dash ?? '',
  }));
  const xs = valued.map(({ p }) => p.x);
  const x = slice.axis === 'connections' ? connectionsAxis(xs) : rpsAxis(xs);
  const y = yAxis(valued.map(({ v }) => v));
  const modes = sortModes(points.map((p) => p.result.mode));
  const multiples = modes.map((mode): ModeMultiple => {
    const here = valued.filter(({ p }) => p.result.mode === mode);
    if (!x || here.length === 0) return { mode, lines: null };
    const drawn = series.filter((_, i) => here.some(({ p }) => p.runIndex === i));
    const rows = new Map<number, SeriesRow>();
    for (const { p, v } of here) {
      let row = rows.get(p.x);
      if (!row) {
        row = { x: p.x };
        for (const s of drawn) row[s.key] = null;
        rows.set(p.x, row);
      }
      row[runKey(p.runIndex)] = v;
    }
    return {
      mode,
      lines: { series: drawn, rows: [...rows.values()].sort((a, b) => a.x - b.x), x, y },
    };
  });
  return { multiples, series };
}

// --- The numbers behind them ---

export interface StepCell {
  /** The run's point at this step; null: the run has none. */
  point: RatePoint | null;
}

export interface StepRow {
  mode: string;
  /** The step: a connection count, or a rate to two digits. */
  step: number;
  /** One per run, the baseline first. */
  points: (RatePoint | null)[];
}

/**
 * The steps of a slice, mode by mode: the points of every run at the same step side by side
 * (the same connections at one rate, or about the same rate at one connection count).
 */
export function stepRows(runs: LoadResultsRun[], sliceArg: SliceArg): StepRow[] {
  const slice = toSlice(sliceArg);
  const { points } = pointsInSlice(runs, slice);
  const rows = new Map<string, StepRow>();
  for (const p of points) {
    const step = stepOf(slice.axis, p.x);
    const id = `${p.result.mode}\u0000${step}`;
    let row = rows.get(id);
    if (!row) {
      row = { mode: p.result.mode, step, points: runs.map(() => null) };
      rows.set(id, row);
    }
    // Two points of a run at one rate step (998 and 1,000 RPS): the later import.
    const seen = row.points[p.runIndex];
    if (!seen || (p.result.id ?? Infinity) > (seen.result.id ?? Infinity))
      row.points[p.runIndex] = p;
  }
  const order = sortModes(points.map((p) => p.result.mode));
  return [...rows.values()].sort(
    (a, b) => order.indexOf(a.mode) - order.indexOf(b.mode) || a.step - b.step,
  );
}

/** What a step is called in a table: "16 connections", "≈1,000 RPS". */
export function stepLabel(axis: LoadAxis, step: number): string {
  return axis === 'connections'
    ? `${step} connection${step === 1 ? '' : 's'}`
    : `≈${step.toLocaleString('en-US')} RPS`;
}
