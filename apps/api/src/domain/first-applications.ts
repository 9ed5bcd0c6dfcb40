// Which observation counts: a proxy's first application of a change. Later ones are
// repeats; applications before the change (clock skew) are kept and counted.
import type { FirstApplication } from './clock-correction.ts';
import { EarliestByKey } from './earliest-by-key.ts';
import { sortSteps } from './slices.ts';

export interface LatencySet {
  /** Sorted first-application latencies, microseconds. */
  sorted: Float64Array;
  observations: number;
  repeats: number;
  beforeChange: number;
  sumUs: number;
}

/** A batch's first applications of a change at one stage. */
export interface ObservedStage {
  changeId: string;
  stage: string;
  apps: FirstApplications;
}

export class FirstApplications {
  private readonly first = new EarliestByKey();
  /** The nodes named, each once: their entry numbers stand for them in `nodeOf`. */
  private readonly nodes = new EarliestByKey();
  /** Per proxy (entry number): the node of its first application, entry number + 1; 0 none. */
  private nodeOf = new Int32Array(1024);
  private sortedFirsts: Float64Array | undefined;
  private fingerprinted: Float64Array | undefined;
  observations = 0;

  /** A proxy's application at `atUs`, on `node` (null: the observation names none). */
  add(proxy: string, atUs: number, node: string | null = null): void {
    this.sortedFirsts = undefined;
    this.fingerprinted = undefined;
    this.observations++;
    const k = this.first.addString(proxy, atUs);
    if (k < 0) return;
    const bytes = node === null ? undefined : Buffer.from(node);
    this.nodeIs(k, bytes ? this.nodes.entryOf(bytes, 0, bytes.length) + 1 : 0);
  }

  /**
   * `add` for a proxy given as its UTF-8 bytes, b[from, to), and its node as b[nodeFrom,
   * nodeTo) (nodeFrom -1: none).
   */
  addBytes(
    b: Uint8Array,
    from: number,
    to: number,
    atUs: number,
    nodeFrom = -1,
    nodeTo = -1,
  ): void {
    this.sortedFirsts = undefined;
    this.fingerprinted = undefined;
    this.observations++;
    const k = this.first.add(b, from, to, atUs);
    // Only a first application's node is kept: a repeat's never counts.
    if (k >= 0) this.nodeIs(k, nodeFrom < 0 ? 0 : this.nodes.entryOf(b, nodeFrom, nodeTo) + 1);
  }

  private nodeIs(k: number, node: number): void {
    if (k >= this.nodeOf.length) {
      const grown = new Int32Array(Math.max(k + 1, this.nodeOf.length * 2));
      grown.set(this.nodeOf);
      this.nodeOf = grown;
    }
    this.nodeOf[k] = node;
  }

  /**
   * Each proxy's first application with its node, as the corrected summary reads them from
   * the stored rows (a proxy's earliest observation; at one instant, the first one given).
   */
  withNodes(): FirstApplication[] {
    const names: (string | null)[] = [null];
    for (let n = 0; n < this.nodes.size; n++) names.push(this.nodes.key(n));
    const at = this.first.values();
    const out: FirstApplication[] = new Array(at.length);
    for (let k = 0; k < at.length; k++)
      out[k] = { node: names[this.nodeOf[k] as number] as string | null, atUs: at[k] as number };
    return out;
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
    const mine = new FingerprintSet(this.fingerprints());
    for (const fingerprints of seen) if (mine.hasAny(fingerprints)) return true;
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

  /**
   * `prepare` as steps of a bounded length, for runSliced (slices.ts) to let reads run
   * between them where nothing else hides the sort (the embedded database).
   */
  *prepareSteps(): Generator<unknown, void> {
    if (this.sortedFirsts) return;
    this.sortedFirsts = yield* sortSteps(this.first.values().slice());
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

/**
 * A set of proxy fingerprints (EarliestByKey.fingerprints: integers below 2^53) in one typed
 * array, open addressing: asked of every fingerprint an earlier batch left, where a Set of
 * numbers would hash each as a heap number.
 */
export class FingerprintSet {
  /** Each slot a fingerprint, or -1 (none is negative). */
  private readonly slots: Float64Array;
  private readonly mask: number;

  constructor(fingerprints: Float64Array) {
    let size = 16;
    while (size < fingerprints.length * 2) size *= 2;
    this.slots = new Float64Array(size).fill(-1);
    this.mask = size - 1;
    for (const f of fingerprints) {
      let s = this.slotOf(f);
      for (let at = this.slots[s] as number; at !== -1 && at !== f; at = this.slots[s] as number)
        s = (s + 1) & this.mask;
      this.slots[s] = f;
    }
  }

  /** The high 32 bits come from one hash of the key, the low 21 from another: either spreads. */
  private slotOf(f: number): number {
    return (Math.floor(f / 2 ** 21) ^ f) & this.mask;
  }

  has(f: number): boolean {
    const { slots, mask } = this;
    for (let s = this.slotOf(f); ; s = (s + 1) & mask) {
      const at = slots[s] as number;
      if (at === f) return true;
      if (at === -1) return false;
    }
  }

  /** Whether any of `fingerprints` is in the set. */
  hasAny(fingerprints: Float64Array): boolean {
    for (let i = 0; i < fingerprints.length; i++)
      if (this.has(fingerprints[i] as number)) return true;
    return false;
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
