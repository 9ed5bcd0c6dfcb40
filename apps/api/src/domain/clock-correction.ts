// Node clocks and what they do to latencies: the offset and error an NTP-style exchange
// gives, each node's offset at any moment from its reports, and latencies with it taken out.
//
// Sign convention, everywhere in meshbench: an offset is the node's clock minus the
// reference clock (positive: the node's clock is ahead). A change's `at` is taken to be on
// the reference clock; an observation's `at` is on its node's clock.
import type { PercentileValue } from '@meshbench/schema';

/** A node's clock at a moment of the reference clock, microseconds. */
export interface ClockReading {
  atUs: number;
  offsetUs: number;
  errorUs: number;
}

/**
 * The offset (node minus reference) and its error bound from the four timestamps of a
 * request/response exchange, all in microseconds: t1 the node sends, t2 the reference
 * receives, t3 the reference sends, t4 the node receives.
 *
 * RFC 5905 section 8 (NTPv4; the same formulas as Mills' on-wire protocol): the offset of
 * the reference B relative to the node A is theta = T(B) - T(A) = ((t2 - t1) + (t3 - t4)) / 2,
 * the round-trip delay delta = (t4 - t1) - (t3 - t2). With one-way delays d1, d2 >= 0 and
 * d1 + d2 = delta, t2 - t1 = theta + d1 and t3 - t4 = theta - d2, so theta's estimate is off
 * by (d1 - d2) / 2, at most delta / 2 (RFC 1305 appendix H bounds it so). Ours is the
 * other way round, node minus reference: offset = -theta, error = delta / 2.
 * Check the exchange first (`exchangeProblem`): an impossible one gives a negative error.
 */
export function offsetFromExchange(
  t1: number,
  t2: number,
  t3: number,
  t4: number,
): { offsetUs: number; errorUs: number } {
  // -theta, written so that a zero offset is +0.
  const offsetUs = (t1 - t2 + (t4 - t3)) / 2;
  const delta = t4 - t1 - (t3 - t2);
  return { offsetUs, errorUs: delta / 2 };
}

/** Why four timestamps are no exchange, and which one says so; undefined when they are. */
export function exchangeProblem(
  t1: number,
  t2: number,
  t3: number,
  t4: number,
): { field: 't3' | 't4'; message: string } | undefined {
  if (t4 < t1)
    return { field: 't4', message: 't4 (node receives) is earlier than t1 (node sends)' };
  if (t3 < t2)
    return { field: 't3', message: 't3 (reference sends) is earlier than t2 (reference receives)' };
  if (t4 - t1 < t3 - t2)
    return {
      field: 't4',
      message:
        'the round-trip delay (t4 - t1) - (t3 - t2) is negative: the reference held the request longer than the node waited',
    };
  return undefined;
}

/**
 * Two measurements of one offset, each true within its error: the interval both allow
 * (its midpoint and half-width), or undefined when they do not overlap (one is wrong).
 */
export function agreeingOffset(
  a: { offsetUs: number; errorUs: number },
  b: { offsetUs: number; errorUs: number },
): { offsetUs: number; errorUs: number } | undefined {
  const lo = Math.max(a.offsetUs - a.errorUs, b.offsetUs - b.errorUs);
  const hi = Math.min(a.offsetUs + a.errorUs, b.offsetUs + b.errorUs);
  // A hair of slack: the two came through decimal milliseconds and microseconds.
  if (lo > hi + 1e-6) return undefined;
  if (lo > hi) return { offsetUs: (lo + hi) / 2, errorUs: 0 };
  return { offsetUs: (lo + hi) / 2, errorUs: (hi - lo) / 2 };
}

/**
 * One node's clock over the run, from its reports.
 *
 * Between two reports the offset is interpolated linearly in reference time: a clock that
 * drifts at a steady rate moves its offset linearly. The error there is the larger of the
 * two reports' errors: with a steady drift the interpolated offset is off by at most the
 * weighted mean of the two errors, which is no more than the larger one; we do not let the
 * bound shrink between reports, since a clock's rate wanders too (chrony tracks it as
 * skew), and the larger error is the honest figure when it does.
 * Before the first report and after the last, the nearest report's offset and error: the
 * clock is assumed to hold its offset there (a runner that reports at the start and the
 * end of a run covers every observation by interpolation).
 */
export class NodeClock {
  private readonly at: Float64Array;
  private readonly offset: Float64Array;
  private readonly error: Float64Array;

  /** `readings` in any order; readings at one moment are averaged, keeping the larger error. */
  constructor(readings: readonly ClockReading[]) {
    if (readings.length === 0) throw new Error('a node clock needs a reading');
    const sorted = [...readings].sort((a, b) => a.atUs - b.atUs);
    const merged: ClockReading[] = [];
    let same = 0;
    for (const r of sorted) {
      const last = merged[merged.length - 1];
      if (last && last.atUs === r.atUs) {
        same++;
        last.offsetUs += (r.offsetUs - last.offsetUs) / same;
        last.errorUs = Math.max(last.errorUs, r.errorUs);
      } else {
        same = 1;
        merged.push({ ...r });
      }
    }
    this.at = Float64Array.from(merged, (r) => r.atUs);
    this.offset = Float64Array.from(merged, (r) => r.offsetUs);
    this.error = Float64Array.from(merged, (r) => r.errorUs);
  }

  get reports(): number {
    return this.at.length;
  }

  /** The offset and its error at a moment of the reference clock. */
  offsetAt(refUs: number): { offsetUs: number; errorUs: number } {
    const { at, offset, error } = this;
    const n = at.length;
    if (refUs <= (at[0] as number))
      return { offsetUs: offset[0] as number, errorUs: error[0] as number };
    if (refUs >= (at[n - 1] as number))
      return { offsetUs: offset[n - 1] as number, errorUs: error[n - 1] as number };
    // The last reading at or before refUs: binary search.
    let lo = 0;
    let hi = n - 1;
    while (hi - lo > 1) {
      const mid = (lo + hi) >>> 1;
      if ((at[mid] as number) <= refUs) lo = mid;
      else hi = mid;
    }
    const a = at[lo] as number;
    const w = (refUs - a) / ((at[hi] as number) - a);
    const oa = offset[lo] as number;
    return {
      offsetUs: oa + ((offset[hi] as number) - oa) * w,
      errorUs: Math.max(error[lo] as number, error[hi] as number),
    };
  }

  /**
   * A time read on this node's clock, on the reference clock, with its error. The offset is
   * a function of reference time, which is what we are after: two rounds of
   * ref = node - offset(ref) settle it (a drift of 1e-4 over a 200 ms offset moves it 20 ns).
   */
  toReference(nodeUs: number): { refUs: number; errorUs: number } {
    let ref = nodeUs - this.offsetAt(nodeUs).offsetUs;
    ref = nodeUs - this.offsetAt(ref).offsetUs;
    const { offsetUs, errorUs } = this.offsetAt(ref);
    return { refUs: nodeUs - offsetUs, errorUs };
  }
}

/** Each node's clock, from a run's reports. */
export function nodeClocks(
  reports: Iterable<ClockReading & { node: string }>,
): Map<string, NodeClock> {
  const byNode = new Map<string, ClockReading[]>();
  for (const { node, ...r } of reports) {
    let list = byNode.get(node);
    if (!list) {
      list = [];
      byNode.set(node, list);
    }
    list.push(r);
  }
  return new Map([...byNode].map(([node, readings]) => [node, new NodeClock(readings)]));
}

/** A proxy's first application of a change, on its node's clock. */
export interface FirstApplication {
  node: string | null;
  atUs: number;
}

export interface CorrectedLatencies {
  /** One latency per first application (us), in the order given, unsorted. */
  latencies: Float64Array;
  /** The largest error of any corrected latency (us); 0 when none was corrected. */
  maxErrorUs: number;
  /** Distinct nodes among the first applications, with and without clock reports. */
  clockNodes: number;
  uncorrectedNodes: number;
  /** First applications left raw: their node has no reports, or they name no node. */
  uncorrectedProxies: number;
}

/**
 * Latencies with each node's offset taken out: (at - offset(node, at)) - change at. A node
 * without reports keeps its raw latencies and is counted as uncorrected. Each corrected
 * value is within its error of the truth, so any order statistic of them (a nearest-rank
 * percentile) is within the largest error: `maxErrorUs` bounds every corrected percentile.
 */
export function correctLatencies(
  firsts: readonly FirstApplication[],
  changeAtUs: number,
  clocks: ReadonlyMap<string, NodeClock>,
): CorrectedLatencies {
  const latencies = new Float64Array(firsts.length);
  let maxErrorUs = 0;
  let uncorrectedProxies = 0;
  const seen = new Map<string, boolean>();
  for (let i = 0; i < firsts.length; i++) {
    const { node, atUs } = firsts[i] as FirstApplication;
    const clock = node === null ? undefined : clocks.get(node);
    if (node !== null) seen.set(node, clock !== undefined);
    if (!clock) {
      latencies[i] = atUs - changeAtUs;
      uncorrectedProxies++;
      continue;
    }
    const { refUs, errorUs } = clock.toReference(atUs);
    latencies[i] = refUs - changeAtUs;
    if (errorUs > maxErrorUs) maxErrorUs = errorUs;
  }
  let clockNodes = 0;
  for (const has of seen.values()) if (has) clockNodes++;
  return {
    latencies,
    maxErrorUs,
    clockNodes,
    uncorrectedNodes: seen.size - clockNodes,
    uncorrectedProxies,
  };
}

/**
 * Where a latency cut falls on one node's clock: the last whole microsecond of that clock
 * whose corrected latency (as correctLatencies computes it) is <= thresholdUs. A first
 * application stamped on that node (whole microseconds) is slower than the cut, corrected,
 * exactly when it is stamped later, so the cut can be held in SQL against the raw timestamps.
 * Found from the offset at the cut's reference moment, then stepped to the exact boundary
 * (toReference rises with the node's time).
 */
export function nodeCutUs(clock: NodeClock, changeAtUs: number, thresholdUs: number): number {
  const latency = (nodeUs: number) => clock.toReference(nodeUs).refUs - changeAtUs;
  const refUs = changeAtUs + thresholdUs;
  let cut = Math.floor(refUs + clock.offsetAt(refUs).offsetUs);
  while (latency(cut) > thresholdUs) cut--;
  while (latency(cut + 1) <= thresholdUs) cut++;
  return cut;
}

/**
 * Where the tail starts, as raw timestamps (epoch us): a first application stamped after its
 * node's cut is in the tail. Raw latencies have one cut for every node (the change's time plus
 * the threshold); corrected ones a cut per node with clock reports (nodeCutUs) and that one for
 * the rest.
 */
export interface TailCuts {
  /** The cut of a node not in `nodes` (or of an observation naming none). */
  defaultUs: number;
  nodes: string[];
  cutsUs: number[];
}

/** The cuts of raw latencies: latencies are whole us, so latency > t exactly when > floor(t). */
export const rawCuts = (changeAtUs: number, thresholdUs: number): TailCuts => ({
  defaultUs: changeAtUs + Math.floor(thresholdUs),
  nodes: [],
  cutsUs: [],
});

/** The cuts of corrected latencies: one per node with a clock, the raw cut for the rest. */
export function correctedCuts(
  clocks: ReadonlyMap<string, NodeClock>,
  changeAtUs: number,
  thresholdUs: number,
): TailCuts {
  const nodes = [...clocks.keys()];
  return {
    ...rawCuts(changeAtUs, thresholdUs),
    nodes,
    cutsUs: nodes.map((n) => nodeCutUs(clocks.get(n) as NodeClock, changeAtUs, thresholdUs)),
  };
}

/** Corrected percentiles carry their bound: the largest clock error of any latency. */
export const withClockError = (ps: PercentileValue[], errorUs: number): PercentileValue[] =>
  ps.map((p) => ({
    ...p,
    exact: false,
    method: 'clock-corrected' as const,
    clockErrorMs: errorUs / 1000,
    lower: p.ms - errorUs / 1000,
    upper: p.ms + errorUs / 1000,
  }));
