// The one number a run's kind is judged by, from what the run keeps: picked here, read by the
// headlines service. Pure: no I/O.
import type { PercentileValue, Topology } from '@meshbench/schema';
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
  return {
    phase: phase.phase,
    count,
    total,
    timeToAllMs: last === undefined ? null : last - startedMs,
  };
}
