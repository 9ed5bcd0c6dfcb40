// Which observation counts: a proxy's first application of a change. Later ones are
// repeats; applications before the change (clock skew) are kept and counted.

export interface LatencySet {
  /** Sorted first-application latencies, microseconds. */
  sorted: Float64Array;
  observations: number;
  repeats: number;
  beforeChange: number;
  sumUs: number;
}

export class FirstApplications {
  private readonly first = new Map<string, number>();
  observations = 0;

  add(proxy: string, atUs: number): void {
    this.observations++;
    const seen = this.first.get(proxy);
    if (seen === undefined || atUs < seen) this.first.set(proxy, atUs);
  }

  get proxies(): number {
    return this.first.size;
  }

  latencies(changeAtUs: number): LatencySet {
    const sorted = new Float64Array(this.first.size);
    let i = 0;
    for (const at of this.first.values()) sorted[i++] = at - changeAtUs;
    return latencySet(sorted, this.observations);
  }
}

/** Sorts latencies (in place) and derives the counts a summary keeps. */
export function latencySet(latencies: Float64Array, observations: number): LatencySet {
  latencies.sort();
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
