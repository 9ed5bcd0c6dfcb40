// Several runs' scale-up timelines laid over one another. Offsets are ms since each run's own
// start, so the runs meet at t = 0; a phase's cumulative count or a series, one line per run,
// on the union of their offsets with one shared time axis.
import { asCores, CORES, isCpuSecondsCounter } from './timeline.ts';

/** What the overlay needs of a run's timeline (the API's Timeline has more). */
export interface OverlayTimeline {
  durationMs: number;
  bucketMs: number;
  phases: { phase: string; total: number; points: { offsetMs: number; count: number }[] }[];
  series: {
    name: string;
    /** The series kind (a counter of CPU seconds is compared in cores). */
    kind?: string;
    unit: string | null;
    points: { offsetMs: number; value: number | null }[];
  }[];
}

/** One run's line: a cumulative count (held, 0 before its first point) or a series (held
 * between its first and last point, null outside them). */
export interface OverlayLineInput {
  key: string;
  kind: 'cumulative' | 'series';
  points: { offsetMs: number; value: number | null }[];
}

/** One instant on the shared axis: `t` (ms since each run's start) and every run's value. */
export type OverlayRow = { t: number } & Record<string, number | null>;

/** A phase as the compared runs reached it: per run (in order) its points, or null. */
export interface ComparedPhase {
  phase: string;
  runs: ({ total: number; points: { offsetMs: number; count: number }[] } | null)[];
}

/** A series name and, per run, the first series of that name (null: the run has none). */
export interface ComparedSeries {
  name: string;
  unit: string | null;
  /** How many of the runs have it. */
  present: number;
  runs: ({ points: { offsetMs: number; value: number | null }[] } | null)[];
}

const byOffset = <T extends { offsetMs: number }>(points: T[]) =>
  [...points].sort((a, b) => a.offsetMs - b.offsetMs);

/** Every line on the union of their offsets, each held between its own points. */
export function overlayRows(lines: OverlayLineInput[]): OverlayRow[] {
  const times = new Set<number>();
  for (const l of lines) for (const p of l.points) times.add(p.offsetMs);
  const rows = [...times].sort((a, b) => a - b).map((t) => ({ t }) as OverlayRow);
  for (const line of lines) {
    const pts = byOffset(line.points);
    const first = pts[0]?.offsetMs;
    const end = pts[pts.length - 1]?.offsetMs;
    let j = 0;
    let last: number | null = line.kind === 'cumulative' ? 0 : null;
    for (const row of rows) {
      while (j < pts.length && (pts[j] as { offsetMs: number }).offsetMs <= row.t) {
        last = (pts[j] as { value: number | null }).value;
        j++;
      }
      const outside =
        line.kind === 'series' &&
        (first === undefined || end === undefined || row.t < first || row.t > end);
      row[line.key] = outside ? null : last;
    }
  }
  return rows;
}

/** The phases of all runs, in the order the runs first list them (the baseline's first). */
export function comparedPhases(timelines: (OverlayTimeline | null)[]): ComparedPhase[] {
  const names: string[] = [];
  for (const t of timelines) {
    for (const p of t?.phases ?? []) if (!names.includes(p.phase)) names.push(p.phase);
  }
  return names.map((phase) => ({
    phase,
    runs: timelines.map((t) => t?.phases.find((p) => p.phase === phase) ?? null),
  }));
}

/**
 * The series that can be compared: those whose name appears in at least two runs, the most
 * widespread first (when only one run has series: all of its own). Series are matched by
 * name; a run with several of one name (other tags) shows the first.
 */
export function comparedSeries(timelines: (OverlayTimeline | null)[]): ComparedSeries[] {
  const names: string[] = [];
  for (const t of timelines) {
    for (const s of t?.series ?? []) if (!names.includes(s.name)) names.push(s.name);
  }
  const withSeries = timelines.filter((t) => (t?.series.length ?? 0) > 0).length;
  const all = names.map((name) => {
    const runs = timelines.map((t) => t?.series.find((s) => s.name === name) ?? null);
    // CPU seconds per bucket differ with the runs' bucket lengths; cores do not.
    const cores = runs.some((s) => s && isCpuSecondsCounter(s));
    return {
      name,
      unit: cores ? CORES : (runs.find((s) => s?.unit)?.unit ?? null),
      present: runs.filter((s) => s !== null).length,
      runs: runs.map((s, i) => {
        if (!s) return null;
        const bucketMs = timelines[i]?.bucketMs ?? 0;
        return {
          points: isCpuSecondsCounter(s) && bucketMs > 0 ? asCores(s.points, bucketMs) : s.points,
        };
      }),
    };
  });
  return all
    .filter((s) => s.present >= Math.min(2, withSeries))
    .sort((a, b) => b.present - a.present);
}

/** The series drawn at first: control-plane CPU when the runs share it, else the first. */
export function defaultSeries(series: ComparedSeries[]): string | null {
  return (series.find((s) => /cpu/i.test(s.name)) ?? series[0])?.name ?? null;
}

/** The shared time axis: from every run's start to the end of the longest. */
export function overlayDomain(timelines: (OverlayTimeline | null)[]): [number, number] {
  let end = 0;
  for (const t of timelines) if (t) end = Math.max(end, t.durationMs, t.bucketMs);
  return [0, end];
}

/** A phase's lines, one per run that reached it (keys are the runs' keys). */
export function phaseLines(phase: ComparedPhase, keys: string[]): OverlayLineInput[] {
  return phase.runs.flatMap((p, i) =>
    p
      ? [
          {
            key: keys[i] as string,
            kind: 'cumulative' as const,
            points: p.points.map((pt) => ({ offsetMs: pt.offsetMs, value: pt.count })),
          },
        ]
      : [],
  );
}

/** A series' lines, one per run that has it. */
export function seriesLines(series: ComparedSeries, keys: string[]): OverlayLineInput[] {
  return series.runs.flatMap((s, i) =>
    s ? [{ key: keys[i] as string, kind: 'series' as const, points: s.points }] : [],
  );
}
