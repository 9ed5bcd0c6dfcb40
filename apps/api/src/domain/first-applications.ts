// Which observation counts: a proxy's first application of a change. Later ones are
// repeats; applications before the change (clock skew) are kept and counted.
import { EarliestByKey } from './earliest-by-key.ts';

export interface LatencySet {
  /** Sorted first-application latencies, microseconds. */
  sorted: Float64Array;
  observations: number;
  repeats: number;
  beforeChange: number;
  sumUs: number;
}

export class FirstApplications {
  private readonly first = new EarliestByKey();
  private sortedFirsts: Float64Array | undefined;
  private fingerprinted: Float64Array | undefined;
  observations = 0;

  add(proxy: string, atUs: number): void {
    this.sortedFirsts = undefined;
    this.fingerprinted = undefined;
    this.observations++;
    this.first.addString(proxy, atUs);
  }

  /** `add` for a proxy given as its UTF-8 bytes, b[from, to). */
  addBytes(b: Uint8Array, from: number, to: number, atUs: number): void {
    this.sortedFirsts = undefined;
    this.fingerprinted = undefined;
    this.observations++;
    this.first.add(b, from, to, atUs);
  }

  get proxies(): number {
    return this.first.size;
  }

  /** A fingerprint of each proxy (see EarliestByKey.fingerprints). */
  fingerprints(): Float64Array {
    this.fingerprinted ??= this.first.fingerprints();
    return this.fingerprinted;
  }

  /**
   * Whether any of these proxies may be among those fingerprinted in `seen` (an earlier
   * batch's proxies): false proves that every one of them is new.
   */
  mayRepeat(seen: Iterable<Float64Array>): boolean {
    const mine = new Set(this.fingerprints());
    for (const fingerprints of seen) for (const f of fingerprints) if (mine.has(f)) return true;
    return false;
  }

  /** Each proxy's first application in this set, epoch microseconds. */
  entries(): IterableIterator<[string, number]> {
    return this.first.entries();
  }

  /**
   * Sorts the first applications ahead of `latencies`, e.g. while the database finishes a
   * COPY: latencies are these times less the change's, so their order is the same.
   */
  prepare(): void {
    if (this.sortedFirsts) return;
    this.sortedFirsts = this.first.values().slice().sort();
  }

  /** The first applications as latencies from the change; once per set. */
  latencies(changeAtUs: number): LatencySet {
    this.prepare();
    const sorted = this.sortedFirsts as Float64Array;
    this.sortedFirsts = undefined;
    for (let i = 0; i < sorted.length; i++) sorted[i] = (sorted[i] as number) - changeAtUs;
    return latencySet(sorted, this.observations, true);
  }
}

/** Sorts latencies (in place, unless already `sorted`) and derives the counts a summary keeps. */
export function latencySet(
  latencies: Float64Array,
  observations: number,
  sorted = false,
): LatencySet {
  if (!sorted) latencies.sort();
  let sumUs = 0;
  let beforeChange = 0;
  for (const l of latencies) {
    sumUs += l;
    if (l < 0) beforeChange++;
  }
  return {
    sorted: latencies,
    observations,
    repeats: observations - latencies.length,
    beforeChange,
    sumUs,
  };
}

/**
 * A change's kept latencies after one more batch, without reading its earlier observations
 * again: `kept` is the sorted set so far (one latency per proxy), `batch` this batch's first
 * applications, and `earlier` the first application (epoch us) that an earlier batch gave
 * for those of the batch's proxies that had one. A proxy new to the change adds its latency;
 * one that reports an earlier application than it did before moves to it; any other
 * report is a repeat.
 */
export function mergeBatch(
  kept: Float64Array,
  keptObservations: number,
  batch: FirstApplications,
  earlier: ReadonlyMap<string, number>,
  changeAtUs: number,
): LatencySet {
  const added: number[] = [];
  const removed: number[] = [];
  for (const [proxy, firstUs] of batch.entries()) {
    const before = earlier.get(proxy);
    if (before === undefined) {
      added.push(firstUs - changeAtUs);
    } else if (firstUs < before) {
      removed.push(before - changeAtUs);
      added.push(firstUs - changeAtUs);
    }
  }
  const add = Float64Array.from(added).sort();
  const drop = Float64Array.from(removed).sort();
  const merged = new Float64Array(kept.length + add.length - drop.length);
  let k = 0;
  let a = 0;
  let d = 0;
  let m = 0;
  while (k < kept.length || a < add.length) {
    const next = k < kept.length ? (kept[k] as number) : Number.POSITIVE_INFINITY;
    if (a < add.length && (add[a] as number) <= next) {
      merged[m++] = add[a++] as number;
    } else if (d < drop.length && (drop[d] as number) === next) {
      k++;
      d++; // this proxy's earlier first application, replaced by the one in the batch
    } else {
      merged[m++] = next;
      k++;
    }
  }
  if (d !== drop.length || m !== merged.length) {
    throw new Error('the kept latencies do not hold an earlier application they should');
  }
  return latencySet(merged, keptObservations + batch.observations, true);
}
