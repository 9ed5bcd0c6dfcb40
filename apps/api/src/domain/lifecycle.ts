// Lifecycle phases over a run: cumulative counts per bucket, rates, and the time it took
// to reach 50/90/99/100 % of the declared total.
import type { Topology } from '@meshbench/schema';
import { nearestRank } from './nearest-rank.ts';

export const TIME_TO_PERCENTS = [50, 90, 99, 100] as const;

export type TotalSource = 'attrs' | 'topology' | 'observed';

/** A phase about nodes (joins): counted against the topology's nodes. */
export function isNodePhase(phase: string): boolean {
  return /join|node|agent|client/.test(phase.toLowerCase());
}

/**
 * The total a phase is measured against, by this rule:
 * 1. the largest numeric `attrs.total` any event of the phase carried (the runner knows);
 * 2. else the run's topology by the phase's name: phases about nodes (join, node, agent,
 *    client) count against `nodes`; allocations and their states (alloc, schedul, place,
 *    running, start, pending) and service registrations (regist, service, instance, proxy,
 *    sidecar) against `instances` (falling back to `services` for registrations);
 * 3. else the number of entities seen (100 % is then the last one).
 */
export function declaredTotal(
  phase: string,
  attrsTotal: number | null,
  topology: Topology,
  observed: number,
): { total: number; source: TotalSource } {
  if (attrsTotal !== null && attrsTotal > 0) return { total: attrsTotal, source: 'attrs' };
  const p = phase.toLowerCase();
  if (isNodePhase(p) && topology.nodes) {
    return { total: topology.nodes, source: 'topology' };
  }
  if (/alloc|schedul|place|running|start|pending/.test(p) && topology.instances) {
    return { total: topology.instances, source: 'topology' };
  }
  if (/regist|service|instance|proxy|sidecar/.test(p)) {
    const total = topology.instances ?? topology.services;
    if (total) return { total, source: 'topology' };
  }
  return { total: observed, source: 'observed' };
}

/**
 * The 1-based rank of the entity whose arrival reaches `percent` % of `total`: the shared
 * nearest rank, and rank 1 for an empty total (no entity reaches it; callers compare the
 * rank with what arrived). A fractional `attrs.total` (a runner may send 2.5) is clamped
 * by nearestRank to 2.5; the ceiling makes it the whole rank 3, i.e. ceil(p/100 * total).
 */
export function rankFor(percent: number, total: number): number {
  return Math.max(1, Math.ceil(nearestRank(percent, total)));
}

/** Cumulative counts and rates from per-bucket arrivals (index -> entities). */
export function cumulative(
  arrivals: ReadonlyMap<number, number>,
  buckets: number,
  bucketMs: number,
): { offsetMs: number; count: number; ratePerSec: number }[] {
  const out: { offsetMs: number; count: number; ratePerSec: number }[] = [];
  let total = 0;
  for (let i = 0; i < buckets; i++) {
    const n = arrivals.get(i) ?? 0;
    total += n;
    out.push({ offsetMs: i * bucketMs, count: total, ratePerSec: n / (bucketMs / 1000) });
  }
  return out;
}

/**
 * One phase on the timeline from its arrivals per bucket and the first arrivals (ms since
 * the origin) at the ranks it needs: cumulative counts per bucket with rates, and the time
 * to each percentage of `total` (null when fewer than that many arrived).
 */
export function phaseFromArrivals(
  phase: {
    observed: number;
    arrivals: ReadonlyMap<number, number>;
    atRank: ReadonlyMap<number, number>;
  },
  total: number,
  buckets: number,
  bucketMs: number,
): {
  points: { offsetMs: number; count: number; ratePerSec: number }[];
  timeTo: { percent: number; offsetMs: number | null }[];
} {
  return {
    points: cumulative(phase.arrivals, buckets, bucketMs),
    timeTo: TIME_TO_PERCENTS.map((percent) => {
      const rank = rankFor(percent, total);
      if (rank > phase.observed) return { percent, offsetMs: null };
      const offsetMs = phase.atRank.get(rank);
      if (offsetMs === undefined) throw new Error(`no first arrival at rank ${rank}`);
      return { percent, offsetMs };
    }),
  };
}

/**
 * Entities per bucket from their first arrivals (ms): arrivals before `originMs` count in
 * the first bucket, after the axis in the last.
 */
export function arrivalsPerBucket(
  firstMs: ArrayLike<number>,
  originMs: number,
  buckets: number,
  bucketMs: number,
): Map<number, number> {
  const arrivals = new Map<number, number>();
  for (let k = 0; k < firstMs.length; k++) {
    const t = firstMs[k] as number;
    const i = Math.min(buckets - 1, Math.max(0, Math.floor((t - originMs) / bucketMs)));
    arrivals.set(i, (arrivals.get(i) ?? 0) + 1);
  }
  return arrivals;
}

/**
 * One phase on the timeline from its entities' first arrivals (ascending, ms since the
 * origin); arrivals before the origin count in the first bucket, after the axis in the last.
 */
export function phaseTimeline(
  firstMs: readonly number[],
  total: number,
  buckets: number,
  bucketMs: number,
): {
  points: { offsetMs: number; count: number; ratePerSec: number }[];
  timeTo: { percent: number; offsetMs: number | null }[];
} {
  const arrivals = arrivalsPerBucket(firstMs, 0, buckets, bucketMs);
  const atRank = new Map(firstMs.map((t, i) => [i + 1, t]));
  return phaseFromArrivals(
    { observed: firstMs.length, arrivals, atRank },
    total,
    buckets,
    bucketMs,
  );
}

/** When a scale-up's workload settled: the steady levels are read from here on. */
export interface SteadyStart {
  /** The phase that settled last. */
  phase: string;
  /** Epoch ms. */
  atMs: number;
  /** false: that phase never reached 100 % of its total; `atMs` is its last first arrival. */
  reached: boolean;
}

/**
 * The end of the ramp: the moment the last lifecycle phase reached 100 % of its total (its
 * declared total, as the timeline's time to 100 % reads it), or, for a phase that never did,
 * its last first arrival. Not the last join: on Kubernetes the nodes join in a minute while
 * pods keep arriving for five, and an average from the last join would take in that ramp.
 * Null when no phase has an arrival.
 */
export function steadyStart(
  phases: readonly { phase: string; attrsTotal: number | null; firsts: ArrayLike<number> }[],
  topology: Topology,
): SteadyStart | null {
  let out: SteadyStart | null = null;
  for (const p of phases) {
    const n = p.firsts.length;
    if (n === 0) continue;
    const { total } = declaredTotal(p.phase, p.attrsTotal, topology, n);
    const rank = rankFor(100, total);
    const reached = rank <= n;
    const atMs = p.firsts[(reached ? rank : n) - 1] as number;
    if (!out || atMs > out.atMs || (atMs === out.atMs && p.phase < out.phase))
      out = { phase: p.phase, atMs, reached };
  }
  return out;
}
