// The one number a run's kind is judged by, from what the run keeps: picked here, read by the
// headlines service. Pure: no I/O.
import {
  GENERATOR_SHORTFALL_FRACTION,
  type LoadStages,
  type PercentileValue,
  type Topology,
} from '@meshbench/schema';
import { declaredTotal, rankFor } from './lifecycle.ts';

/** A load point as far as its headline needs it (a row of GET /runs/{id}/results). */
export interface HeadlinePoint {
  mode: string;
  connections: number | null;
  targetRps: number | null;
  achievedRps: number | null;
  percentiles: PercentileValue[];
  /** Set on one generator's share of a step: the step's merged row stands for it. */
  generator: string | null;
  labels: Record<string, string>;
  /** The step's merged row: the generators merged into it. */
  merged: { generators: unknown[] } | null;
}

/** A step's configuration: the Istio perf CSV label's config, else none. */
export const configOf = (p: { labels: Record<string, string> }): string | null =>
  p.labels.config ?? null;

/**
 * The data-plane headline: P99 at the top rate (the target, else the achieved rate). Only
 * whole steps count: one generator's share of a step is read through the step's merged row
 * (its HdrHistograms added), never by its own P99. Of the steps at that rate (modes,
 * connections, configurations, repeats), the slowest P99, so a list never shows a better
 * number than the run has.
 */
export function dataPlaneHeadline(rows: readonly HeadlinePoint[]) {
  const points = rows.filter((p) => p.generator === null);
  const rate = (p: HeadlinePoint) => p.targetRps ?? p.achievedRps;
  const rates = points.map(rate).filter((r): r is number => r !== null);
  const top = rates.length > 0 ? Math.max(...rates) : null;
  const atTop = points.filter((p) => rate(p) === top);
  const p99 = (p: HeadlinePoint) => p.percentiles.find((q) => q.p === 99) ?? null;
  let pick: HeadlinePoint | undefined;
  for (const p of atTop) {
    if (!pick || (p99(p)?.ms ?? -1) > (p99(pick)?.ms ?? -1)) pick = p;
  }
  if (!pick) return null;
  const chosen = pick;
  const repeats = atTop.filter(
    (p) =>
      p.mode === chosen.mode &&
      p.connections === chosen.connections &&
      configOf(p) === configOf(chosen),
  ).length;
  return {
    mode: chosen.mode,
    connections: chosen.connections,
    config: configOf(chosen),
    rps: top,
    p99: p99(chosen),
    generators: chosen.merged ? chosen.merged.generators.length : null,
    repeats,
    overBaseline: overBaseline(points),
  };
}

const BASELINE = 'baseline';

/**
 * The latency the mesh adds over the baseline (Istio's data-plane page: "+3 ms P50, +10 ms
 * P99 over the baseline at 1,000 RPS and 16 connections"). Pairs each step with a baseline
 * step at the same target rate, connections and configuration (an Istio perf CSV's config: the
 * same session; the first in the run's order); at the top
 * rate that has a pair, the step whose P99 is furthest above its baseline's, so the sentence
 * never shows less than the run has. Null when no step has a baseline.
 */
export function overBaseline(points: readonly HeadlinePoint[]) {
  const p = (x: HeadlinePoint, q: number) => x.percentiles.find((v) => v.p === q) ?? null;
  const pairs: { step: HeadlinePoint; base: HeadlinePoint; rps: number; added: number }[] = [];
  for (const step of points) {
    if (step.mode === BASELINE || step.targetRps === null) continue;
    const base = points.find(
      (b) =>
        b.mode === BASELINE &&
        b.targetRps === step.targetRps &&
        b.connections === step.connections &&
        configOf(b) === configOf(step) &&
        p(b, 99) !== null,
    );
    const s99 = p(step, 99);
    const b99 = base ? p(base, 99) : null;
    if (!base || !s99 || !b99) continue;
    pairs.push({ step, base, rps: step.targetRps, added: s99.ms - b99.ms });
  }
  if (pairs.length === 0) return null;
  const top = Math.max(...pairs.map((x) => x.rps));
  let pick: (typeof pairs)[number] | undefined;
  for (const x of pairs) if (x.rps === top && (!pick || x.added > pick.added)) pick = x;
  if (!pick) return null;
  return {
    mode: pick.step.mode,
    connections: pick.step.connections,
    rps: pick.rps,
    config: configOf(pick.step),
    p50: p(pick.step, 50),
    p99: p(pick.step, 99),
    baselineP50: p(pick.base, 50),
    baselineP99: p(pick.base, 99),
  };
}

/** Istio's 500k-RPS test: "p99 must stay < 5x median". */
export const STAGE_TAIL_LIMIT = 5;

/**
 * A stages run's headline (Istio's "500,000 RPS held, P99 under 5x median in 274 of 300
 * seconds"): the top stage's target and whether it was held (achieved >= 95 % of it, the
 * generators' shortfall rule), and how many intervals kept P99 < limit x P50. Null without
 * interval data.
 */
export function stagesHeadline(view: LoadStages, limit = STAGE_TAIL_LIMIT) {
  if (view.series.length === 0) return null;
  const rate = (s: LoadStages['stages'][number]) => s.targetRps ?? s.achievedRps ?? -1;
  let top: LoadStages['stages'][number] | undefined;
  for (const s of view.stages) if (!top || rate(s) > rate(top)) top = s;
  let intervals = 0;
  let under = 0;
  let fromEstimates = false;
  for (const slot of view.series) {
    const p50 = slot.percentiles.find((q) => q.p === 50);
    const p99 = slot.percentiles.find((q) => q.p === 99);
    if (!p50 || !p99) continue;
    intervals++;
    if (p99.ms < limit * p50.ms) under++;
    if (!p50.accuracy.exact || !p99.accuracy.exact) fromEstimates = true;
  }
  const targetRps = top?.targetRps ?? null;
  const achievedRps = top?.achievedRps ?? null;
  return {
    targetRps,
    achievedRps,
    held:
      targetRps !== null &&
      achievedRps !== null &&
      achievedRps >= GENERATOR_SHORTFALL_FRACTION * targetRps,
    limit,
    intervalMs: view.intervalMs,
    intervals,
    under,
    fromEstimates,
  };
}

/** A lifecycle phase as kept: its first arrivals (epoch ms, ascending) and attrs total. */
export interface HeadlinePhase {
  phase: string;
  attrsTotal: number | null;
  firsts: ArrayLike<number>;
}

/**
 * The scale-up headline: time from the run's start to the last entity of the phase's total
 * (the timeline's "time to 100 %"), of `joined` when the run has it, else of the phase with
 * most entities; null time when fewer than the total arrived.
 */
export function scaleUpHeadline(
  phases: readonly HeadlinePhase[],
  topology: Topology,
  startedMs: number,
) {
  const phase =
    phases.find((p) => p.phase === 'joined') ??
    [...phases].sort((a, b) => b.firsts.length - a.firsts.length)[0];
  if (!phase) return null;
  const count = phase.firsts.length;
  const { total } = declaredTotal(phase.phase, phase.attrsTotal, topology, count);
  const rank = rankFor(100, total);
  const last = rank <= count ? phase.firsts[rank - 1] : undefined;
  const timeToAllMs = last === undefined ? null : last - startedMs;
  return {
    phase: phase.phase,
    count,
    total,
    timeToAllMs,
    meanPerS: timeToAllMs === null || timeToAllMs <= 0 ? null : total / (timeToAllMs / 1000),
    peakPerS: peakPerSecond(phase.firsts, startedMs),
  };
}

/** The most arrivals in one whole second counted from `startMs` (C2M's "peak per second"). */
export function peakPerSecond(firsts: ArrayLike<number>, startMs: number): number | null {
  if (firsts.length === 0) return null;
  const per = new Map<number, number>();
  let peak = 0;
  for (let i = 0; i < firsts.length; i++) {
    const second = Math.floor(((firsts[i] as number) - startMs) / 1000);
    const n = (per.get(second) ?? 0) + 1;
    per.set(second, n);
    if (n > peak) peak = n;
  }
  return peak;
}
