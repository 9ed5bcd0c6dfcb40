// Exact counts of latencies a load generator recorded at a fixed resolution (hey's 0.1 ms,
// JMeter's whole ms): each value is a whole number of ticks, so counting per tick keeps every
// sample exactly in memory bounded by the range of the values, not by how many there are.
// Percentiles are nearest rank over the recorded values (the one rank rule, nearestRank); a
// recorded value is the true one only to within the tool's rounding, and each percentile says
// so with its [lower, upper].
import type { PercentileValue } from '@meshbench/schema';
import { nearestRank } from './nearest-rank.ts';

/** Ticks counted in a dense array below this; larger (rare, slow) ticks in a map. */
const DENSE_TICKS = 1 << 22;

/** How a tool turned a measured latency into the value it wrote, in ticks. */
export interface TickRounding {
  /** The true value is at least recorded - below and at most recorded + above, in ticks. */
  below: number;
  above: number;
}

export class TickCounts {
  private dense = new Float64Array(1024);
  private sparse = new Map<number, number>();
  /** Highest dense tick counted, +1. */
  private denseEnd = 0;
  count = 0;
  private sum = 0;
  private sumSquares = 0;
  min = Number.POSITIVE_INFINITY;
  max = Number.NEGATIVE_INFINITY;

  constructor(
    /** One tick, in ms. */
    readonly tickMs: number,
    readonly rounding: TickRounding,
  ) {}

  /** One recorded value, a whole number of ticks >= 0. */
  add(tick: number): void {
    if (tick < DENSE_TICKS) {
      if (tick >= this.dense.length) {
        let size = this.dense.length;
        while (size <= tick) size *= 2;
        const grown = new Float64Array(Math.min(size, DENSE_TICKS));
        grown.set(this.dense);
        this.dense = grown;
      }
      this.dense[tick] = (this.dense[tick] as number) + 1;
      if (tick >= this.denseEnd) this.denseEnd = tick + 1;
    } else {
      this.sparse.set(tick, (this.sparse.get(tick) ?? 0) + 1);
    }
    this.count++;
    this.sum += tick;
    this.sumSquares += tick * tick;
    if (tick < this.min) this.min = tick;
    if (tick > this.max) this.max = tick;
  }

  /** Distinct recorded values (ticks) in ascending order, with their counts. */
  *entries(): Generator<[number, number]> {
    for (let t = 0; t < this.denseEnd; t++) {
      const c = this.dense[t] as number;
      if (c > 0) yield [t, c];
    }
    yield* [...this.sparse.entries()].sort((a, b) => a[0] - b[0]);
  }

  /** Nearest-rank percentiles of the recorded values, ms, each with its rounding bound. */
  percentiles(ps: number[]): PercentileValue[] {
    if (this.count === 0) return [];
    const wanted = ps
      .map((p) => ({ p, rank: nearestRank(p, this.count) }))
      .sort((a, b) => a.rank - b.rank);
    const out: PercentileValue[] = [];
    let seen = 0;
    let next = 0;
    for (const [tick, c] of this.entries()) {
      seen += c;
      while (next < wanted.length && (wanted[next] as { rank: number }).rank <= seen) {
        out.push(this.valueAt((wanted[next] as { p: number }).p, tick));
        next++;
      }
      if (next === wanted.length) break;
    }
    return out.sort((a, b) => a.p - b.p);
  }

  private valueAt(p: number, tick: number): PercentileValue {
    const exact = this.rounding.below === 0 && this.rounding.above === 0;
    return {
      p,
      ms: this.ms(tick),
      exact,
      method: 'raw',
      ...(exact
        ? {}
        : {
            lower: this.ms(Math.max(0, tick - this.rounding.below)),
            upper: this.ms(tick + this.rounding.above),
          }),
    };
  }

  /** Ticks as ms, without the float noise of tick * 0.1. */
  ms(ticks: number): number {
    return Number((ticks * this.tickMs).toPrecision(12));
  }

  /** Mean and population standard deviation of the recorded values, ms. */
  moments(): { meanMs: number; stdDevMs: number } | null {
    if (this.count === 0) return null;
    const mean = this.sum / this.count;
    const variance = Math.max(0, this.sumSquares / this.count - mean * mean);
    return { meanMs: this.ms(mean), stdDevMs: Math.sqrt(variance) * this.tickMs };
  }
}
