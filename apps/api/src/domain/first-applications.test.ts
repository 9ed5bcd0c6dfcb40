import { describe, expect, it } from 'vitest';
import { FingerprintSet, FirstApplications, latencySet, mergeBatch } from './first-applications.ts';

describe('FirstApplications', () => {
  it('counts a proxy once, at its earliest application, and the rest as repeats', () => {
    const f = new FirstApplications();
    f.add('a', 1500);
    f.add('b', 1200);
    f.add('a', 1100); // earlier than its first report: this is the first application
    f.add('a', 9000);
    const set = f.latencies(1000);
    expect([...set.sorted]).toEqual([100, 200]);
    expect(set.repeats).toBe(2);
    expect(set.observations).toBe(4);
    expect(set.sumUs).toBe(300);
  });
  it('keeps applications before the change as negative latencies', () => {
    const f = new FirstApplications();
    f.add('a', 900);
    f.add('b', 1000);
    f.add('c', 1300);
    const set = f.latencies(1000);
    expect([...set.sorted]).toEqual([-100, 0, 300]);
    expect(set.beforeChange).toBe(1);
  });
});

describe('FirstApplications.withNodes', () => {
  it("gives each proxy's first application with its node, whatever its repeats say", () => {
    const f = new FirstApplications();
    f.add('a', 1500, 'n-1');
    f.add('b', 1200);
    f.add('a', 1100, 'n-2'); // earlier: this one's node
    f.add('a', 1100, 'n-3'); // the same instant: the first given stays
    f.add('b', 1300, 'n-4'); // later: a repeat
    f.add('c', 1400, 'n-2');
    expect(f.withNodes()).toEqual([
      { node: 'n-2', atUs: 1100 },
      { node: null, atUs: 1200 },
      { node: 'n-2', atUs: 1400 },
    ]);
    // Sorting the latencies leaves them be.
    expect([...f.latencies(1000).sorted]).toEqual([100, 200, 400]);
    expect(f.withNodes().map((a) => a.atUs)).toEqual([1100, 1200, 1400]);
  });

  it('keeps the nodes of many proxies', () => {
    const f = new FirstApplications();
    for (let i = 0; i < 5000; i++) {
      const line = Buffer.from(
        `proxy-${String(i).padStart(5, '0')} node-${String(i % 7).padStart(3, '0')}`,
      );
      f.addBytes(line, 0, 11, 10_000 - i, 12, 20);
      f.addBytes(line, 0, 11, 20_000, 12, 16); // a repeat naming another node
    }
    const apps = f.withNodes();
    expect(apps).toHaveLength(5000);
    expect(apps[4999]).toEqual({ node: 'node-001', atUs: 5001 });
    expect(new Set(apps.map((a) => a.node)).size).toBe(7);
  });
});

describe('FirstApplications.mayRepeat', () => {
  it('proves a batch of new proxies new, and never misses one seen before', () => {
    const earlier = new FirstApplications();
    for (let i = 0; i < 5000; i++) earlier.add(`p-${i}`, i);
    const seen = [earlier.fingerprints()];
    const fresh = new FirstApplications();
    for (let i = 5000; i < 10_000; i++) fresh.add(`p-${i}`, i);
    expect(fresh.mayRepeat(seen)).toBe(false);
    expect(fresh.mayRepeat([])).toBe(false);
    fresh.add('p-4999', 1); // one proxy of the earlier batch, added after the first check
    expect(fresh.mayRepeat(seen)).toBe(true);
    const again = new FirstApplications();
    again.add('p-17', 3);
    expect(again.mayRepeat([new Float64Array(0), ...seen])).toBe(true);
  });
});

describe('FingerprintSet', () => {
  /** The check as it was: a Set of numbers (the obviously right path). */
  const setMayRepeat = (mine: Float64Array, seen: Float64Array[]) => {
    const set = new Set(mine);
    return seen.some((fs) => fs.some((f) => set.has(f)));
  };

  it('answers as a Set of the same fingerprints, for any and for near collisions', () => {
    let seed = 42;
    const next = () => {
      seed = (Math.imul(seed, 1_103_515_245) + 12_345) >>> 0;
      return seed;
    };
    // Below 2^53; the same low bits, the same high bits, and the extremes.
    const fingerprint = () => (next() % 2 ** 21) * 2 ** 32 + next();
    for (let round = 0; round < 50; round++) {
      const mine = Float64Array.from({ length: next() % 300 }, fingerprint);
      if (round % 5 === 0 && mine.length > 0) mine[0] = 0;
      if (round % 7 === 0 && mine.length > 1) mine[1] = 2 ** 53 - 1;
      const seen = Array.from({ length: next() % 4 }, () =>
        Float64Array.from({ length: next() % 300 }, (_, i) =>
          i % 50 === 3 && mine.length > 0
            ? (mine[next() % mine.length] as number)
            : i % 50 === 4
              ? ((mine[0] ?? 0) + 2 ** 32) % 2 ** 53 // shares the low 32 bits
              : fingerprint(),
        ),
      );
      const set = new FingerprintSet(mine);
      for (const f of mine) expect(set.has(f)).toBe(true);
      for (const fs of seen) expect(set.hasAny(fs)).toBe(fs.some((f) => new Set(mine).has(f)));
      expect(seen.some((fs) => set.hasAny(fs))).toBe(setMayRepeat(mine, seen));
    }
  });

  it('holds duplicates once and finds nothing in an empty set', () => {
    const set = new FingerprintSet(new Float64Array([5, 5, 2 ** 21 + 5, 5]));
    expect(set.has(5)).toBe(true);
    expect(set.has(2 ** 21 + 5)).toBe(true);
    expect(set.has(6)).toBe(false);
    expect(new FingerprintSet(new Float64Array(0)).hasAny(new Float64Array([0, 1]))).toBe(false);
    expect(set.hasAny(new Float64Array(0))).toBe(false);
  });
});

describe('mergeBatch', () => {
  const batchOf = (...reports: [string, number][]) => {
    const f = new FirstApplications();
    for (const [proxy, at] of reports) f.add(proxy, at);
    return f;
  };

  it('adds proxies new to the change and counts reports of known ones as repeats', () => {
    // Kept so far (change at 1000): a at 1100, b at 1300, c at 1700; 4 observations.
    const kept = new Float64Array([100, 300, 700]);
    const batch = batchOf(['d', 1200], ['b', 1500], ['e', 3000]);
    const set = mergeBatch(kept, 4, batch, new Map([['b', 1300]]), 1000);
    expect([...set.sorted]).toEqual([100, 200, 300, 700, 2000]);
    expect(set.observations).toBe(7);
    expect(set.repeats).toBe(2); // a's second report before, b's now
    expect(set.sumUs).toBe(3300);
  });

  it('moves a proxy to an earlier application reported later, and keeps ties', () => {
    const kept = new Float64Array([-50, 300, 300, 900]);
    // c first said 1900 (latency 900); now it says 1100, before everyone but a.
    const batch = batchOf(['c', 1100], ['f', 1300]);
    const set = mergeBatch(kept, 4, batch, new Map([['c', 1900]]), 1000);
    expect([...set.sorted]).toEqual([-50, 100, 300, 300, 300]);
    expect(set.observations).toBe(6);
    expect(set.repeats).toBe(1);
    expect(set.beforeChange).toBe(1);
  });

  it('refuses a replacement whose earlier latency is not kept', () => {
    const kept = new Float64Array([100]);
    const batch = batchOf(['x', 1050]);
    expect(() => mergeBatch(kept, 1, batch, new Map([['x', 1500]]), 1000)).toThrow(/earlier/);
  });
});

describe('FirstApplications from bytes, and its sorting', () => {
  it('addBytes: no node by default, a node from byte 0, repeats counted', () => {
    const f = new FirstApplications();
    const line = Buffer.from('n-1 proxy-a proxy-b');
    f.addBytes(line, 4, 11, 500); // proxy-a, no node named
    f.addBytes(line, 12, 19, 300, 0, 3); // proxy-b on n-1 (bytes 0 to 3)
    f.addBytes(line, 12, 19, 900, 0, 3); // a repeat
    expect(f.observations).toBe(3);
    expect(f.proxies).toBe(2);
    expect(f.withNodes()).toEqual([
      { node: null, atUs: 500 },
      { node: 'n-1', atUs: 300 },
    ]);
    const set = f.latencies(100);
    expect([...set.sorted]).toEqual([200, 400]);
    expect(set.repeats).toBe(1);
  });
  it('latencies come sorted whatever order the proxies came in', () => {
    const f = new FirstApplications();
    for (const [p, at] of [
      ['c', 30],
      ['a', 10],
      ['b', 20],
    ] as const)
      f.add(p, at);
    expect([...f.latencies(0).sorted]).toEqual([10, 20, 30]);
  });
  it('prepareSteps sorts in steps, leaving each proxy its own time', () => {
    const f = new FirstApplications();
    f.add('c', 30, 'n-3');
    f.add('a', 10, 'n-1');
    f.add('b', 20, 'n-2');
    const steps = f.prepareSteps();
    let yields = 0;
    while (!steps.next().done) yields++;
    expect(yields).toBe(1);
    // Sorted already: no more steps.
    let again = 0;
    for (const _ of f.prepareSteps()) again++;
    expect(again).toBe(0);
    expect(f.withNodes()).toEqual([
      { node: 'n-3', atUs: 30 },
      { node: 'n-1', atUs: 10 },
      { node: 'n-2', atUs: 20 },
    ]);
    expect(new Map(f.entries())).toEqual(
      new Map([
        ['c', 30],
        ['a', 10],
        ['b', 20],
      ]),
    );
    expect([...f.latencies(5).sorted]).toEqual([5, 15, 25]);
  });
  it('latencySet sorts unless told the latencies are sorted, and counts', () => {
    const set = latencySet(new Float64Array([3, -1, 2]), 5);
    expect([...set.sorted]).toEqual([-1, 2, 3]);
    expect(set).toMatchObject({ observations: 5, repeats: 2, beforeChange: 1, sumUs: 4 });
    // Told sorted: taken as it is.
    expect([...latencySet(new Float64Array([3, 1]), 2, true).sorted]).toEqual([3, 1]);
  });
});

describe('mergeBatch: several proxies added and moved at once', () => {
  it('adds new proxies in order whatever order the batch gave them', () => {
    const batch = new FirstApplications();
    batch.add('c', 130);
    batch.add('a', 110);
    batch.add('b', 120);
    const set = mergeBatch(new Float64Array([15]), 1, batch, new Map(), 100);
    expect([...set.sorted]).toEqual([10, 15, 20, 30]);
    expect(set.observations).toBe(4);
  });
  it('moves several proxies to earlier applications, whatever order they came in', () => {
    // Kept latencies 5, 7, 9 (change at 100: firsts 105, 107, 109); the batch moves the
    // proxy at 109 to 101 and the one at 105 to 102.
    const batch = new FirstApplications();
    batch.add('late', 101);
    batch.add('early', 102);
    const earlier = new Map([
      ['late', 109],
      ['early', 105],
    ]);
    const set = mergeBatch(new Float64Array([5, 7, 9]), 3, batch, earlier, 100);
    expect([...set.sorted]).toEqual([1, 2, 7]);
    expect(set).toMatchObject({ observations: 5, repeats: 2, sumUs: 10 });
  });
});
