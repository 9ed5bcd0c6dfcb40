// The scale-up timeline: lifecycle phases (cumulative counts) and metric series put on one
// time axis (ms since the run started), the units they are written in, and the zoom domain.
import { formatDurationMs } from './duration.ts';
import { formatCount, NO_VALUE } from './format.ts';

export interface PhaseInput {
  phase: string;
  points: { offsetMs: number; count: number; ratePerSec: number }[];
}

export interface SeriesInput {
  id: string;
  name: string;
  unit: string | null;
  /** min/max: the bucket's extremes, drawn as a band around the line. */
  points: { offsetMs: number; value: number | null; min?: number | null; max?: number | null }[];
}

/** One line of a timeline chart: its key in the rows, its label, unit and colour. */
export interface TimelineLine {
  key: string;
  label: string;
  unit: string | null;
  color: string;
  kind: 'phase' | 'series';
  /** A derived line (pending), drawn dashed. */
  dashed?: boolean;
  /** The row keys of its per-bucket min and max, when it has them (bandKeys()). */
  band?: { lo: string; hi: string };
}

/** One instant on the shared axis: `t` (ms since the run start) and every line's value. */
export type TimelineRow = { t: number } & Record<string, number | null>;

export interface AlignedTimeline {
  phases: TimelineLine[];
  series: TimelineLine[];
  rows: TimelineRow[];
}

const PALETTE = [
  '#2f5fd0',
  '#1f7a4d',
  '#c2410c',
  '#7c3aed',
  '#0e7490',
  '#b42318',
  '#a16207',
  '#be185d',
];

export const phaseKey = (i: number) => `p${i}`;
export const seriesKey = (id: string) => `s${id.replace(/[^A-Za-z0-9_]/g, '_')}`;
/** The row keys of a line's per-bucket min and max. */
export const bandKeys = (key: string) => ({ lo: `${key}__lo`, hi: `${key}__hi` });

/**
 * Every phase and picked series on the union of their offsets. A phase is a cumulative
 * count: it holds its last value (0 before its first point). A series holds its last value
 * between its own points and is null outside them (before its first, after its last).
 */
export function alignTimeline(phases: PhaseInput[], series: SeriesInput[]): AlignedTimeline {
  const phaseLines: TimelineLine[] = phases.map((p, i) => ({
    key: phaseKey(i),
    label: p.phase,
    unit: null,
    color: PALETTE[i % PALETTE.length] as string,
    kind: 'phase',
  }));
  const seriesLines: TimelineLine[] = series.map((s, i) => ({
    key: seriesKey(s.id),
    label: s.name,
    unit: s.unit,
    color: PALETTE[(i + phases.length) % PALETTE.length] as string,
    kind: 'series',
    ...(s.points.some((p) => p.min != null || p.max != null)
      ? { band: bandKeys(seriesKey(s.id)) }
      : {}),
  }));
  const times = new Set<number>();
  for (const p of phases) for (const pt of p.points) times.add(pt.offsetMs);
  for (const s of series) for (const pt of s.points) times.add(pt.offsetMs);
  const axis = [...times].sort((a, b) => a - b);
  const rows: TimelineRow[] = axis.map((t) => ({ t }) as TimelineRow);

  phases.forEach((p, i) => {
    const pts = [...p.points].sort((a, b) => a.offsetMs - b.offsetMs);
    let j = 0;
    let last = 0;
    for (const row of rows) {
      while (j < pts.length && (pts[j] as { offsetMs: number }).offsetMs <= row.t) {
        last = (pts[j] as { count: number }).count;
        j++;
      }
      row[phaseKey(i)] = last;
    }
  });
  series.forEach((s, i) => {
    const pts = [...s.points].sort((a, b) => a.offsetMs - b.offsetMs);
    const key = seriesKey(s.id);
    const band = seriesLines[i]?.band;
    const first = pts[0]?.offsetMs;
    const end = pts[pts.length - 1]?.offsetMs;
    let j = 0;
    let last: SeriesInput['points'][number] | null = null;
    for (const row of rows) {
      while (j < pts.length && (pts[j] as { offsetMs: number }).offsetMs <= row.t) {
        last = pts[j] as SeriesInput['points'][number];
        j++;
      }
      const held =
        first === undefined || end === undefined || row.t < first || row.t > end ? null : last;
      row[key] = held ? held.value : null;
      if (band) {
        // A bucket without extremes is a band of its value alone.
        row[band.lo] = held ? (held.min ?? held.value) : null;
        row[band.hi] = held ? (held.max ?? held.value) : null;
      }
    }
  });
  return { phases: phaseLines, series: seriesLines, rows };
}

/**
 * A time since the run start, for tables and tooltips: "850 ms", "12.3 s", "2 min 05 s",
 * "1 h 02 min".
 */
export function formatOffset(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms)) return NO_VALUE;
  const a = Math.abs(ms);
  const sign = ms < 0 ? '-' : '';
  if (a < 1000) return `${sign}${Math.round(a)} ms`;
  if (a < 60_000) return `${sign}${(a / 1000).toFixed(1)} s`;
  const totalS = Math.round(a / 1000);
  if (totalS < 3600) {
    const m = Math.floor(totalS / 60);
    const s = totalS % 60;
    return `${sign}${m} min ${String(s).padStart(2, '0')} s`;
  }
  const totalM = Math.round(a / 60_000);
  const h = Math.floor(totalM / 60);
  return `${sign}${h} h ${String(totalM % 60).padStart(2, '0')} min`;
}

/**
 * An axis tick: whole seconds ("45 s") on a span of up to 2 minutes, else minutes and
 * seconds ("2:05").
 */
export function formatAxisTime(ms: number, spanMs: number): string {
  if (spanMs <= 120_000) {
    const s = ms / 1000;
    return `${Number.isInteger(s) ? s : s.toFixed(1)} s`;
  }
  const total = Math.round(ms / 1000);
  const m = Math.floor(total / 60);
  return `${m}:${String(total % 60).padStart(2, '0')}`;
}

function trim(n: number, digits: number): string {
  // Only a fraction's trailing zeros go: 100 bytes stay "100", not "1".
  const text = n.toFixed(digits);
  return digits > 0 ? text.replace(/\.?0+$/, '') : text;
}

/** A compact number: 950, 1.2k, 3.4M. */
function compact(v: number): string {
  const a = Math.abs(v);
  if (a >= 1e9) return `${trim(v / 1e9, 1)}G`;
  if (a >= 1e6) return `${trim(v / 1e6, 1)}M`;
  if (a >= 1e4) return `${trim(v / 1e3, 1)}k`;
  if (a >= 1000) return formatCount(v);
  if (a >= 1) return trim(v, 2);
  if (a === 0) return '0';
  return String(Number(v.toPrecision(2)));
}

/** The unit a counter of CPU seconds is drawn in (CPU seconds per second): cores. */
export const CORES = '{core}';

/**
 * A counter of CPU time in seconds (Go's `process_cpu_seconds_total`, unit s): its bucket
 * value is CPU seconds per bucket, which only reads once divided by the bucket's length.
 */
export function isCpuSecondsCounter(s: {
  name: string;
  kind?: string;
  unit: string | null;
}): boolean {
  return (
    s.kind === 'counter' &&
    /cpu/i.test(s.name) &&
    (s.unit === 's' || /(^|[._])seconds([._]total)?$/i.test(s.name))
  );
}

/**
 * A CPU-seconds counter's buckets as cores: each increase over the time it accrued in, in s.
 * That is the time since the series' previous bucket with a value, not the bucket's length:
 * a collector scraping every 10 s into 1 s buckets leaves nine buckets empty, and the tenth
 * holds 10 s of CPU (5 CPU s there is half a core, not 5 cores). Buckets side by side give
 * the bucket's length (3 CPU s in a 2 s bucket: 1.5 cores). The first value's interval is
 * taken as the next one's (the scrape interval), or the bucket's when it stands alone. The
 * min and max go: they are increases per stored interval, whose length the timeline does not
 * give.
 */
export function asCores<P extends { offsetMs: number; value: number | null }>(
  points: readonly P[],
  bucketMs: number,
): (P & { min: null; max: null })[] {
  const valued = points.filter((p) => p.value !== null).map((p) => p.offsetMs);
  const firstGap = valued.length > 1 ? (valued[1] as number) - (valued[0] as number) : bucketMs;
  let previous: number | null = null;
  return points.map((p) => {
    if (p.value === null) return { ...p, value: null, min: null, max: null };
    const sinceMs = Math.max(previous === null ? firstGap : p.offsetMs - previous, bucketMs);
    previous = p.offsetMs;
    return { ...p, value: p.value / (sinceMs / 1000), min: null, max: null };
  });
}

/**
 * A series value in its unit (UCUM as OTLP sends it): bytes in binary multiples, seconds
 * and milliseconds as durations, ratios ("1") and counts as compact numbers, "{push}"
 * annotations as a word after the number.
 */
export function formatValue(v: number | null | undefined, unit: string | null): string {
  if (v === null || v === undefined || !Number.isFinite(v)) return NO_VALUE;
  switch (unit) {
    case 'By': {
      const a = Math.abs(v);
      if (a >= 1024 ** 3) return `${trim(v / 1024 ** 3, 2)} GiB`;
      if (a >= 1024 ** 2) return `${trim(v / 1024 ** 2, 1)} MiB`;
      if (a >= 1024) return `${trim(v / 1024, 1)} KiB`;
      return `${trim(v, 0)} B`;
    }
    // Durations in the unit that reads, as everywhere on the page (duration.ts).
    case 'ms':
      return formatDurationMs(v);
    case 's':
      return formatDurationMs(v * 1000);
    case '%':
      return `${trim(v, 1)} %`;
    case CORES:
      return `${compact(v)} ${v === 1 ? 'core' : 'cores'}`;
    case null:
    case '':
    case '1':
      return compact(v);
    default: {
      const word = unit.replace(/^\{(.*)\}$/, '$1');
      return `${compact(v)} ${word}`;
    }
  }
}

/** A rate per second: "16.7/s". */
export function formatRate(perSec: number | null | undefined): string {
  if (perSec === null || perSec === undefined || !Number.isFinite(perSec)) return NO_VALUE;
  return `${compact(perSec)}/s`;
}

/**
 * The x domain shown: the whole run, or a selection dragged in either direction, clamped
 * to the run and at least `minSpanMs` wide (a click is not a zoom: null).
 */
export function zoomDomain(
  fullMs: [number, number],
  selection: { from: number; to: number } | null,
  minSpanMs = 1000,
): [number, number] {
  if (!selection) return fullMs;
  const lo = Math.max(fullMs[0], Math.min(selection.from, selection.to));
  const hi = Math.min(fullMs[1], Math.max(selection.from, selection.to));
  if (hi - lo < minSpanMs) return fullMs;
  return [lo, hi];
}

/** A drag is a zoom when it covers at least this share of the shown domain. */
export function isZoomDrag(from: number, to: number, shown: [number, number]): boolean {
  return Math.abs(to - from) >= (shown[1] - shown[0]) * 0.01 && from !== to;
}

/** The rows inside a domain, with one row either side so lines reach the edges. */
export function rowsInDomain(rows: TimelineRow[], domain: [number, number]): TimelineRow[] {
  let start = rows.findIndex((r) => r.t >= domain[0]);
  if (start === -1) return rows.slice(-1);
  start = Math.max(0, start - 1);
  let end = rows.findIndex((r) => r.t > domain[1]);
  end = end === -1 ? rows.length : end + 1;
  return rows.slice(start, end);
}

/**
 * The mean rate of a phase: the entities that reached it over the time until the last
 * of them did (time to 100 %, else the end of the last bucket in which the count grew).
 */
export function meanRate(
  count: number,
  timeTo100Ms: number | null,
  points: { offsetMs: number; count: number }[],
  bucketMs: number,
): number | null {
  if (count === 0) return 0;
  let until = timeTo100Ms;
  if (until === null) {
    const firstAtFinal = points.find((p) => p.count >= count);
    until = firstAtFinal ? firstAtFinal.offsetMs + bucketMs : null;
  }
  if (until === null || until <= 0) return null;
  return count / (until / 1000);
}

/** The highest per-second rate seen in any bucket. */
export function peakRate(points: { ratePerSec: number }[]): number | null {
  if (points.length === 0) return null;
  return Math.max(...points.map((p) => p.ratePerSec));
}

const TICK_STEPS_S = [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200];

/** Round time ticks over a domain (multiples of 1 s ... 2 h), about `target` of them. */
export function timeTicks(domain: [number, number], target = 8): number[] {
  const span = domain[1] - domain[0];
  if (!(span > 0)) return [domain[0]];
  const stepS =
    TICK_STEPS_S.find((s) => span / (s * 1000) <= target) ??
    (TICK_STEPS_S[TICK_STEPS_S.length - 1] as number);
  const step = stepS * 1000;
  const ticks: number[] = [];
  for (let t = Math.ceil(domain[0] / step) * step; t <= domain[1]; t += step) ticks.push(t);
  return ticks;
}
