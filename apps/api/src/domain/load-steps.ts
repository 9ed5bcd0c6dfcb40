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
  decodeHdr,
  type HdrCounts,
  hdrAccuracy,
  hdrPercentiles,
  hdrStats,
  scaled,
} from './hdr.ts';

const UNIT_PER_MS: Record<HdrValueUnit, number> = { ns: 1e6, us: 1e3, ms: 1 };
const UNITS: HdrValueUnit[] = ['ms', 'us', 'ns'];

/** What a step is: the key generators' points are merged by. */
export interface StepKey {
  mode: string;
  connections: number | null;
  targetRps: number | null;
}
export const stepKey = (s: StepKey) => JSON.stringify([s.mode, s.connections, s.targetRps]);

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
  labels: Record<string, string>;
  startedAt: string | null;
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
    const stats = merger.stats();
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
      achievedRps: sumOrNull(group.map((p) => p.achievedRps)),
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

/** The most common interval length, whole ms. */
function typicalIntervalMs(intervals: StoredInterval[]): number {
  const seen = new Map<number, number>();
  let best = 0;
  let bestCount = 0;
  for (const i of intervals) {
    const ms = Math.max(1, Math.round(i.durationMs));
    const n = (seen.get(ms) ?? 0) + 1;
    seen.set(ms, n);
    if (n > bestCount || (n === bestCount && ms < best)) {
      best = ms;
      bestCount = n;
    }
  }
  return best;
}

interface Slot {
  startMs: number;
  durationMs: number;
  requests: number;
  errors: number | null;
  generators: number;
  merger: HdrMerger;
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
  const byId = new Map(points.map((p) => [p.id, p]));
  const unit = finest(points.map((p) => unitOf(p.labels)));
  const intervalMs = typicalIntervalMs(intervals);
  const slots = new Map<number, Slot>();
  const spans = new Map<number, { fromMs: number; toMs: number }>();
  for (const i of intervals) {
    const point = byId.get(i.resultId);
    if (!point) continue;
    const startMs = Math.round(i.startMs / intervalMs) * intervalMs;
    let slot = slots.get(startMs);
    if (!slot) {
      slot = {
        startMs,
        durationMs: 0,
        requests: 0,
        errors: null,
        generators: 0,
        merger: new HdrMerger(unit),
      };
      slots.set(startMs, slot);
    }
    slot.durationMs = Math.max(slot.durationMs, i.durationMs);
    slot.requests += i.count;
    if (i.errors !== null) slot.errors = (slot.errors ?? 0) + i.errors;
    slot.generators += 1;
    slot.merger.add(decodeHdr(i.hdr), unitOf(point.labels), roundingOf(point.labels));
    const span = spans.get(i.resultId);
    const end = i.startMs + i.durationMs;
    if (!span) spans.set(i.resultId, { fromMs: i.startMs, toMs: end });
    else {
      span.fromMs = Math.min(span.fromMs, i.startMs);
      span.toMs = Math.max(span.toMs, end);
    }
  }
  const series: LoadSeriesSlot[] = [...slots.values()]
    .sort((a, b) => a.startMs - b.startMs)
    .map((s) => ({
      startMs: s.startMs,
      durationMs: s.durationMs,
      requests: s.requests,
      errors: s.errors,
      rps: s.durationMs > 0 ? s.requests / (s.durationMs / 1000) : 0,
      errorRate: s.errors === null || s.requests === 0 ? null : s.errors / s.requests,
      percentiles: s.merger.percentiles(percentiles),
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
      achievedRps: sumOrNull(group.map((p) => p.achievedRps)),
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
