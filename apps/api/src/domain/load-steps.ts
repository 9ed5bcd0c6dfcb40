// A run's load steps from per-generator points: their HdrHistograms added (never an average
// of percentiles), counts and rates summed, each generator's share judged; and the run's
// intervals merged per time slot (the stages view). Pure: the service reads the rows.

import {
  GENERATOR_SATURATED_CPU,
  GENERATOR_SHORTFALL_FRACTION,
  type GeneratorShare,
  type HdrValueUnit,
  type LoadSeriesSlot,
  type LoadStage,
  type LoadStages,
  type PercentileValue,
  type StagePercentile,
} from '@meshbench/schema';
import {
  addInto,
  bucketBounds,
  decodeHdr,
  type HdrCounts,
  hdrAccuracy,
  hdrPercentiles,
  hdrStats,
  scaled,
} from './hdr.ts';
import { runWhole } from './slices.ts';

/** An HdrHistogram unit's values per millisecond. */
export const UNIT_PER_MS: Record<HdrValueUnit, number> = { ns: 1e6, us: 1e3, ms: 1 };
const UNITS: HdrValueUnit[] = ['ms', 'us', 'ns'];

/**
 * What a step is: the key generators' points are merged by. A gate's steps also carry their
 * configuration (an Istio perf CSV label's config): steps of two configurations are two steps.
 */
export interface StepKey {
  mode: string;
  connections: number | null;
  targetRps: number | null;
  config?: string | null;
}
export const stepKey = (s: StepKey) =>
  JSON.stringify([s.mode, s.connections, s.targetRps, s.config ?? null]);

/** A stored point as merging reads it. */
export interface GeneratorPoint extends StepKey {
  id: number;
  /** null when the file named no generator (the step's only source). */
  generator: string | null;
  achievedRps: number | null;
  durationMs: number | null;
  requests: number | null;
  errors: number | null;
  errorsByCode: Record<string, number>;
  minMs: number | null;
  meanMs: number | null;
  maxMs: number | null;
  stdDevMs: number | null;
  labels: Record<string, string>;
  startedAt: string | null;
  /** startedAt as epoch ms to the microsecond (what measuredSpan reads), when known. */
  startedAtMs?: number | null;
  /** The point's whole histogram (V2 compressed), when it has one. */
  hdr: Uint8Array | null;
}

export const unitOf = (labels: Record<string, string>): HdrValueUnit =>
  (UNITS as string[]).includes(labels.hdrUnit ?? '') ? (labels.hdrUnit as HdrValueUnit) : 'us';

/** How far a point's recorded values may be from the measured ones, ms (its source rounded). */
export const roundingOf = (labels: Record<string, string>): number => {
  const r = Number(labels.hdrRoundingMs ?? 0);
  return Number.isFinite(r) && r > 0 ? r : 0;
};

/** The finest unit among `units` (so merging only ever scales up). */
const finest = (units: HdrValueUnit[]): HdrValueUnit =>
  units.reduce((a, b) => (UNIT_PER_MS[b] > UNIT_PER_MS[a] ? b : a), 'ms' as HdrValueUnit);

/** Histograms in their own units, merged in the finest of them. */
export class HdrMerger {
  private acc: HdrCounts | null = null;
  /** The largest rounding of any histogram added (see roundingOf), ms. */
  private roundingMs = 0;
  constructor(readonly unit: HdrValueUnit) {}
  /** A merger holding counts merged before (a kept slot), in `unit`. */
  static of(unit: HdrValueUnit, counts: HdrCounts | null, roundingMs: number): HdrMerger {
    const merger = new HdrMerger(unit);
    merger.acc = counts;
    merger.roundingMs = roundingMs;
    return merger;
  }
  get rounding(): number {
    return this.roundingMs;
  }
  add(h: HdrCounts, unit: HdrValueUnit, roundingMs = 0) {
    this.roundingMs = Math.max(this.roundingMs, roundingMs);
    const inUnit = scaled(h, UNIT_PER_MS[this.unit] / UNIT_PER_MS[unit]);
    if (this.acc === null) {
      this.acc = { ...inUnit, counts: Float64Array.from(inUnit.counts) };
    } else addInto(this.acc, inUnit);
  }
  get counts(): HdrCounts | null {
    return this.acc;
  }
  percentiles(ps: number[]): StagePercentile[] {
    if (!this.acc) return [];
    const acc = this.acc;
    const perMs = UNIT_PER_MS[this.unit];
    return hdrPercentiles(acc, ps).map((q) => ({
      p: q.p,
      ms: q.value / perMs,
      accuracy: hdrAccuracy(acc, q, perMs, this.roundingMs),
    }));
  }
  percentileValues(ps: number[]): PercentileValue[] {
    return this.percentiles(ps).map(({ p, ms, accuracy }) => ({ p, ms, ...accuracy }));
  }
  /** The lowest and highest value merged (bucket bounds), ms; without the mean's pass. */
  range(): { min: number | null; max: number | null } {
    const acc = this.acc;
    if (!acc || acc.total === 0) return { min: null, max: null };
    let first = 0;
    while (acc.counts[first] === 0) first++;
    let last = acc.counts.length - 1;
    while (acc.counts[last] === 0) last--;
    const perMs = UNIT_PER_MS[this.unit];
    return { min: bucketBounds(acc, first).low / perMs, max: bucketBounds(acc, last).high / perMs };
  }
  stats() {
    const perMs = UNIT_PER_MS[this.unit];
    const s = this.acc ? hdrStats(this.acc) : null;
    const inMs = (v: number | null | undefined) =>
      v === null || v === undefined ? null : v / perMs;
    return { min: inMs(s?.min), max: inMs(s?.max), mean: inMs(s?.mean), stdDev: inMs(s?.stdDev) };
  }
}

/** A generator's standing in its step: short of its share of the target, or CPU-saturated. */
export function generatorShare(
  p: Pick<GeneratorPoint, 'generator' | 'achievedRps' | 'targetRps' | 'labels'>,
  generators: number,
): GeneratorShare {
  const share = p.targetRps === null ? null : p.targetRps / generators;
  const cpu = Number(p.labels.generatorCpu);
  return {
    name: p.generator ?? '',
    achievedRps: p.achievedRps,
    shortfall:
      share !== null &&
      share > 0 &&
      p.achievedRps !== null &&
      p.achievedRps < share * GENERATOR_SHORTFALL_FRACTION,
    saturated:
      p.labels.generatorCpu !== undefined && Number.isFinite(cpu) && cpu >= GENERATOR_SATURATED_CPU,
  };
}

const sumOrNull = (values: (number | null)[]) =>
  values.every((v) => v === null) ? null : values.reduce<number>((s, v) => s + (v ?? 0), 0);

/** A point's measured span, epoch ms: from its start over its duration; null when either is unknown. */
export function measuredSpan(
  p: Pick<GeneratorPoint, 'startedAtMs' | 'durationMs'>,
): { fromMs: number; toMs: number } | null {
  if (p.startedAtMs == null || p.durationMs === null || !(p.durationMs > 0)) return null;
  return { fromMs: p.startedAtMs, toMs: p.startedAtMs + p.durationMs };
}

/** How long any of the spans covers, ms (overlaps counted once). */
export function unionMs(spans: { fromMs: number; toMs: number }[]): number {
  const sorted = [...spans].sort((a, b) => a.fromMs - b.fromMs);
  let total = 0;
  let from = Number.NaN;
  let to = Number.NaN;
  for (const s of sorted) {
    if (!(s.fromMs <= to)) {
      if (to > from) total += to - from;
      from = s.fromMs;
      to = s.toMs;
    } else if (s.toMs > to) to = s.toMs;
  }
  if (to > from) total += to - from;
  return total;
}

/**
 * The achieved rate of points taken as one load step: their requests over the time any of
 * them ran (the union of their measured spans, or of `spans` where a point has none), so
 * generators that ran side by side add up while scenarios that ran one after another do not.
 * The sum of the points' own rates when a point's requests or span is unknown.
 */
export function stepRate(
  points: Pick<GeneratorPoint, 'id' | 'requests' | 'achievedRps' | 'startedAtMs' | 'durationMs'>[],
  spans?: IntervalSpans,
): number | null {
  const measured = points.map((p) => measuredSpan(p) ?? spans?.get(p.id) ?? null);
  if (points.length === 0 || points.some((p) => p.requests === null) || measured.includes(null)) {
    return sumOrNull(points.map((p) => p.achievedRps));
  }
  const ms = unionMs(measured as { fromMs: number; toMs: number }[]);
  if (!(ms > 0)) return sumOrNull(points.map((p) => p.achievedRps));
  return points.reduce((n, p) => n + (p.requests as number), 0) / (ms / 1000);
}

export interface MergedStep extends StepKey {
  points: GeneratorPoint[];
  achievedRps: number | null;
  durationMs: number | null;
  requests: number | null;
  errors: number | null;
  errorsByCode: Record<string, number>;
  percentiles: PercentileValue[];
  minMs: number | null;
  meanMs: number | null;
  maxMs: number | null;
  stdDevMs: number | null;
  startedAt: string | null;
  generators: GeneratorShare[];
  /** The labels every generator's point carries alike (the step's config...), not their own. */
  labels: Record<string, string>;
}

/** Labels a step's generators do not share (each its own) or that describe one generator. */
const OWN_LABELS = new Set(['generatorCpu']);

/** The labels all of `points` carry with the same value. */
export function sharedLabels(points: readonly { labels: Record<string, string> }[]) {
  const [first, ...rest] = points;
  const out: Record<string, string> = {};
  if (!first) return out;
  for (const [k, v] of Object.entries(first.labels)) {
    if (!OWN_LABELS.has(k) && rest.every((p) => p.labels[k] === v)) out[k] = v;
  }
  return out;
}

/**
 * The step's min, mean, max and standard deviation from its generators' own, where every
 * generator's point has them: exact when theirs are (k6 keeps them from every sample), where
 * the merged histogram's are only within a bucket. The standard deviation is pooled:
 * sum of n (sd^2 + (mean - mean of all)^2), over all n. Null where a point lacks one.
 */
function pooledStats(group: GeneratorPoint[]) {
  const all = group.every(
    (p) => p.minMs !== null && p.meanMs !== null && p.maxMs !== null && (p.requests ?? 0) > 0,
  );
  if (!all) return null;
  const n = group.reduce((t, p) => t + (p.requests as number), 0);
  const mean = group.reduce((t, p) => t + (p.requests as number) * (p.meanMs as number), 0) / n;
  const sds = group.every((p) => p.stdDevMs !== null);
  const variance = group.reduce((t, p) => {
    const d = (p.meanMs as number) - mean;
    return t + (p.requests as number) * ((p.stdDevMs as number) ** 2 + d * d);
  }, 0);
  return {
    min: Math.min(...group.map((p) => p.minMs as number)),
    mean,
    max: Math.max(...group.map((p) => p.maxMs as number)),
    stdDev: sds ? Math.sqrt(variance / n) : null,
  };
}

/** Each step with at least one generator's point, merged; in the order steps first appear. */
export function mergeSteps(points: GeneratorPoint[], percentiles: number[]): MergedStep[] {
  const groups = new Map<string, GeneratorPoint[]>();
  for (const p of points) {
    const key = stepKey(p);
    const group = groups.get(key);
    if (group) group.push(p);
    else groups.set(key, [p]);
  }
  return [...groups.values()].map((group) => {
    const first = group[0] as GeneratorPoint;
    const withHdr = group.filter((p) => p.hdr !== null);
    const merger = new HdrMerger(finest(withHdr.map((p) => unitOf(p.labels))));
    for (const p of withHdr)
      merger.add(decodeHdr(p.hdr as Uint8Array), unitOf(p.labels), roundingOf(p.labels));
    const stats = pooledStats(group) ?? merger.stats();
    const errorsByCode: Record<string, number> = {};
    for (const p of group) {
      for (const [code, n] of Object.entries(p.errorsByCode))
        errorsByCode[code] = (errorsByCode[code] ?? 0) + n;
    }
    const started = group
      .map((p) => p.startedAt)
      .filter((s): s is string => s !== null)
      .sort();
    const durations = group.map((p) => p.durationMs).filter((d): d is number => d !== null);
    return {
      mode: first.mode,
      connections: first.connections,
      targetRps: first.targetRps,
      points: group,
      achievedRps: stepRate(group),
      durationMs: durations.length > 0 ? Math.max(...durations) : null,
      requests: sumOrNull(group.map((p) => p.requests)),
      errors: sumOrNull(group.map((p) => p.errors)),
      errorsByCode,
      percentiles: merger.percentileValues(percentiles),
      minMs: stats.min,
      meanMs: stats.mean,
      maxMs: stats.max,
      stdDevMs: stats.stdDev,
      startedAt: started[0] ?? null,
      generators: group.map((p) => generatorShare(p, group.length)),
      labels: sharedLabels(group),
    };
  });
}

/** A stored interval as the stages view reads it. */
export interface StoredInterval {
  resultId: number;
  startMs: number;
  durationMs: number;
  count: number;
  errors: number | null;
  hdr: Uint8Array;
}

/** The most common interval length, whole ms (the shortest of equally common ones). */
export function typicalIntervalMs(lengths: Iterable<{ durationMs: number; n: number }>): number {
  const seen = new Map<number, number>();
  for (const { durationMs, n } of lengths) {
    const ms = Math.max(1, Math.round(durationMs));
    seen.set(ms, (seen.get(ms) ?? 0) + n);
  }
  let best = 0;
  let bestCount = 0;
  for (const [ms, n] of seen) {
    if (n > bestCount || (n === bestCount && ms < best)) {
      best = ms;
      bestCount = n;
    }
  }
  return best;
}

/** What a run's slots are merged on: the slot length and the unit of their histograms. */
export interface SlotGrid {
  intervalMs: number;
  unit: HdrValueUnit;
}

/** The grid of a run's intervals (their lengths) and points (their units). */
export function slotGrid(
  lengths: Iterable<{ durationMs: number; n: number }>,
  points: Pick<GeneratorPoint, 'labels'>[],
): SlotGrid {
  return {
    intervalMs: typicalIntervalMs(lengths),
    unit: finest(points.map((p) => unitOf(p.labels))),
  };
}

/** The slot an interval starting at `startMs` falls in: its start rounded to the grid. */
export const slotStart = (startMs: number, intervalMs: number) =>
  Math.round(startMs / intervalMs) * intervalMs;

/** One slot: every interval of every generator and step whose start rounds to `startMs`. */
export interface Slot {
  startMs: number;
  durationMs: number;
  requests: number;
  errors: number | null;
  /** Intervals merged. */
  generators: number;
  merger: HdrMerger;
  /** Percentiles kept with the slot (KEPT_SLOT_PERCENTILES), when read without its histogram. */
  kept?: StagePercentile[];
}

/** The percentiles a kept slot carries computed: the stages view's usual choices. */
export const KEPT_SLOT_PERCENTILES = [50, 90, 99, 99.9];

/** Whether a slot's kept percentiles answer `ps` without its histogram. */
export const keptAnswers = (ps: number[]) => ps.every((p) => KEPT_SLOT_PERCENTILES.includes(p));

/** A slot's percentiles: the kept ones when they answer, else read off its histogram. */
function slotPercentiles(s: Slot, ps: number[]): StagePercentile[] {
  if (s.kept && keptAnswers(ps)) {
    const kept = s.kept;
    if (kept.length === 0) return [];
    return ps.map((p) => kept.find((k) => k.p === p) as StagePercentile);
  }
  return s.merger.percentiles(ps);
}

export const emptySlot = (startMs: number, unit: HdrValueUnit): Slot => ({
  startMs,
  durationMs: 0,
  requests: 0,
  errors: null,
  generators: 0,
  merger: new HdrMerger(unit),
});

/**
 * Adds an interval of `point` into its slot; false when the result depends on the order
 * intervals are added in (see addsInAnyOrder).
 */
export function addToSlot(
  slot: Slot,
  i: Omit<StoredInterval, 'resultId'>,
  point: Pick<GeneratorPoint, 'labels'>,
): boolean {
  slot.durationMs = Math.max(slot.durationMs, i.durationMs);
  slot.requests += i.count;
  if (i.errors !== null) slot.errors = (slot.errors ?? 0) + i.errors;
  slot.generators += 1;
  const unit = slot.merger.unit;
  const inUnit = scaled(decodeHdr(i.hdr), UNIT_PER_MS[unit] / UNIT_PER_MS[unitOf(point.labels)]);
  const orderFree = addsInAnyOrder(slot, inUnit);
  slot.merger.add(inUnit, unit, roundingOf(point.labels));
  return orderFree;
}

/** What is kept of a run's slots: their grid, and how many intervals they merged. */
export interface KeptSlots {
  grid: SlotGrid | null;
  intervals: number;
}

/**
 * An upload's intervals added into the kept slots they fall in (`slots`: the kept ones of
 * those starts, changed in place); the slots changed, or null when the run's slots must be
 * rebuilt from every interval instead: the grid changed, the kept slots do not hold every
 * earlier interval, or the merge would depend on the order.
 */
export function addUpload(
  kept: KeptSlots,
  earlierIntervals: number,
  grid: SlotGrid,
  slots: Map<number, Slot>,
  upload: { labels: Record<string, string>; intervals: Omit<StoredInterval, 'resultId'>[] }[],
): Slot[] | null {
  return runWhole(addUploadSteps(kept, earlierIntervals, grid, slots, upload));
}

/**
 * Whether an upload can be added onto the kept slots: they hold every earlier interval, on
 * the upload's grid (or none yet).
 */
function uploadFits(kept: KeptSlots, earlierIntervals: number, grid: SlotGrid): boolean {
  if (kept.intervals !== earlierIntervals) return false;
  return (
    kept.grid === null || (kept.grid.intervalMs === grid.intervalMs && kept.grid.unit === grid.unit)
  );
}

/** addUpload one step an interval (runSliced runs it with the event loop between slices). */
export function* addUploadSteps(
  kept: KeptSlots,
  earlierIntervals: number,
  grid: SlotGrid,
  slots: Map<number, Slot>,
  upload: { labels: Record<string, string>; intervals: Omit<StoredInterval, 'resultId'>[] }[],
): Generator<void, Slot[] | null> {
  if (!uploadFits(kept, earlierIntervals, grid)) return null;
  const changed = new Map<number, Slot>();
  for (const point of upload) {
    for (const i of point.intervals) {
      const startMs = slotStart(i.startMs, grid.intervalMs);
      let slot = slots.get(startMs);
      if (!slot) {
        slot = emptySlot(startMs, grid.unit);
        slots.set(startMs, slot);
      }
      if (!addToSlot(slot, i, point)) return null;
      changed.set(startMs, slot);
      yield;
    }
  }
  return [...changed.values()];
}

/**
 * addUploadSteps, each slot handed to `finish` as soon as the upload adds nothing more to it,
 * and then let go: a log of 20,000 intervals never holds 20,000 slots' counts at once (at
 * 64 KiB each, 1.3 GB). What `finish` makes of them, in the order they were finished, or null
 * as addUploadSteps.
 */
export function* addUploadFinishing<T>(
  kept: KeptSlots,
  earlierIntervals: number,
  grid: SlotGrid,
  slots: Map<number, Slot>,
  upload: { labels: Record<string, string>; intervals: Omit<StoredInterval, 'resultId'>[] }[],
  finish: (slot: Slot) => T,
): Generator<void, T[] | null> {
  if (!uploadFits(kept, earlierIntervals, grid)) return null;
  /** Intervals of the upload still to add into each slot. */
  const left = new Map<number, number>();
  for (const point of upload)
    for (const i of point.intervals) {
      const startMs = slotStart(i.startMs, grid.intervalMs);
      left.set(startMs, (left.get(startMs) ?? 0) + 1);
    }
  const out: T[] = [];
  for (const point of upload) {
    for (const i of point.intervals) {
      const startMs = slotStart(i.startMs, grid.intervalMs);
      let slot = slots.get(startMs);
      if (!slot) {
        slot = emptySlot(startMs, grid.unit);
        slots.set(startMs, slot);
      }
      if (!addToSlot(slot, i, point)) return null;
      const rest = (left.get(startMs) as number) - 1;
      if (rest === 0) {
        out.push(finish(slot));
        slots.delete(startMs);
        left.delete(startMs);
      } else left.set(startMs, rest);
      yield;
    }
  }
  return out;
}

/**
 * Whether adding histograms of `adding`'s structure into `slot` gives what merging in any
 * order gives: same digits and lowest value add bucket by bucket (otherwise a histogram is
 * re-recorded into the first one's structure, which depends on the order).
 */
export function addsInAnyOrder(slot: Slot, adding: Pick<HdrCounts, 'digits' | 'lowest'>): boolean {
  const acc = slot.merger.counts;
  return acc === null || (acc.digits === adding.digits && acc.lowest === adding.lowest);
}

/** A run's intervals merged into their slots, in time order (the reference every path equals). */
export function buildSlots(
  points: Pick<GeneratorPoint, 'id' | 'labels'>[],
  intervals: StoredInterval[],
): { grid: SlotGrid; slots: Slot[] } {
  const byId = new Map(points.map((p) => [p.id, p]));
  const grid = slotGrid(
    intervals.map((i) => ({ durationMs: i.durationMs, n: 1 })),
    points,
  );
  const slots = new Map<number, Slot>();
  for (const i of intervals) {
    const point = byId.get(i.resultId);
    if (!point) continue;
    const startMs = slotStart(i.startMs, grid.intervalMs);
    let slot = slots.get(startMs);
    if (!slot) {
      slot = emptySlot(startMs, grid.unit);
      slots.set(startMs, slot);
    }
    addToSlot(slot, i, point);
  }
  return { grid, slots: [...slots.values()].sort((a, b) => a.startMs - b.startMs) };
}

/** Each of a run's points with intervals: its first interval's start and last one's end. */
export type IntervalSpans = Map<number, { fromMs: number; toMs: number }>;

export function intervalSpans(intervals: StoredInterval[]): IntervalSpans {
  const spans: IntervalSpans = new Map();
  for (const i of intervals) {
    const span = spans.get(i.resultId);
    const end = i.startMs + i.durationMs;
    if (!span) spans.set(i.resultId, { fromMs: i.startMs, toMs: end });
    else {
      span.fromMs = Math.min(span.fromMs, i.startMs);
      span.toMs = Math.max(span.toMs, end);
    }
  }
  return spans;
}

/**
 * The stages view: every interval merged into its slot (start rounded to the nearest
 * multiple of the typical interval length), and one stage per step with intervals.
 */
export function buildStages(
  points: GeneratorPoint[],
  intervals: StoredInterval[],
  percentiles: number[],
): LoadStages {
  if (intervals.length === 0) return { intervalMs: 0, series: [], stages: [] };
  const { grid, slots } = buildSlots(points, intervals);
  const byId = new Set(points.map((p) => p.id));
  return stagesOf(
    points,
    intervalSpans(intervals.filter((i) => byId.has(i.resultId))),
    grid,
    slots,
    percentiles,
  );
}

/** The stages view from merged slots (kept or just built) and the points' spans. */
export function stagesOf(
  points: GeneratorPoint[],
  spans: IntervalSpans,
  grid: SlotGrid,
  slots: Slot[],
  percentiles: number[],
): LoadStages {
  const { intervalMs, unit } = grid;
  const series: LoadSeriesSlot[] = slots.map((s) => ({
    startMs: s.startMs,
    durationMs: s.durationMs,
    requests: s.requests,
    errors: s.errors,
    rps: s.durationMs > 0 ? s.requests / (s.durationMs / 1000) : 0,
    errorRate: s.errors === null || s.requests === 0 ? null : s.errors / s.requests,
    percentiles: slotPercentiles(s, percentiles),
    generators: s.generators,
  }));

  const withIntervals = points.filter((p) => spans.has(p.id));
  const groups = new Map<string, GeneratorPoint[]>();
  for (const p of withIntervals) {
    const key = stepKey(p);
    groups.set(key, [...(groups.get(key) ?? []), p]);
  }
  const stages: LoadStage[] = [...groups.values()].map((group) => {
    const first = group[0] as GeneratorPoint;
    const merger = new HdrMerger(unit);
    for (const p of group) {
      if (p.hdr) merger.add(decodeHdr(p.hdr), unitOf(p.labels), roundingOf(p.labels));
    }
    const groupSpans = group.map((p) => spans.get(p.id) as { fromMs: number; toMs: number });
    const requests = group.reduce((s, p) => s + (p.requests ?? 0), 0);
    const errors = sumOrNull(group.map((p) => p.errors));
    return {
      mode: first.mode,
      connections: first.connections,
      targetRps: first.targetRps,
      fromMs: Math.min(...groupSpans.map((s) => s.fromMs)),
      toMs: Math.max(...groupSpans.map((s) => s.toMs)),
      achievedRps: stepRate(group, spans),
      requests,
      errors,
      errorRate: errors === null || requests === 0 ? null : errors / requests,
      percentiles: merger.percentiles(percentiles),
      generators: group.map((p) => generatorShare(p, group.length)),
    };
  });
  stages.sort((a, b) => a.fromMs - b.fromMs);
  return { intervalMs, series, stages };
}
