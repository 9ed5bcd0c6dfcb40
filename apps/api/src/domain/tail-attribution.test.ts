import { describe, expect, it } from 'vitest';
import { type AttributeCount, minTailCount, rankAttribution } from './tail-attribution.ts';

const node = (n: number) => `n-${String(n).padStart(3, '0')}`;

describe('rankAttribution', () => {
  it('ranks the one slow node among 100 first, lift 100', () => {
    // 100 nodes of 10 proxies (total 1000); the tail is the 10 proxies of n-042. The azs
    // a, b, c hold 34, 33, 33 nodes; n-042 is in a (42 % 3 = 0).
    const counts: AttributeCount[] = [];
    for (let n = 0; n < 100; n++)
      counts.push({ attribute: 'node', value: node(n), inTail: n === 42 ? 10 : 0, overall: 10 });
    counts.push({ attribute: 'az', value: 'a', inTail: 10, overall: 340 });
    counts.push({ attribute: 'az', value: 'b', inTail: 0, overall: 330 });
    counts.push({ attribute: 'az', value: 'c', inTail: 0, overall: 330 });
    const ranked = rankAttribution(counts, 10, 1000, 10);
    // node: (10/10) / (10/1000) = 100; az a: (10/10) / (340/1000) = 2.94...
    expect(ranked.map((r) => [r.attribute, r.value, r.inTail, r.overall, r.share])).toEqual([
      ['node', 'n-042', 10, 10, 1],
      ['az', 'a', 10, 340, 1],
    ]);
    expect(ranked[0]?.lift).toBeCloseTo(100, 10);
    expect(ranked[0]?.lift).toBeGreaterThanOrEqual(10);
    expect(ranked[1]?.lift).toBeCloseTo(1000 / 340, 10);
  });

  it('finds nothing standing out in a tail spread evenly', () => {
    // 1000 proxies, 10 nodes of 100; the tail (50) takes 5 from each node; causes split
    // the same way in the tail as overall.
    const counts: AttributeCount[] = [];
    for (let n = 0; n < 10; n++)
      counts.push({ attribute: 'node', value: node(n), inTail: 5, overall: 100 });
    counts.push({ attribute: 'cause', value: 'reconnect', inTail: 10, overall: 200 });
    const ranked = rankAttribution(counts, 50, 1000, 10);
    // Each node: (5/50) / (100/1000) = 1; the cause: (10/50) / (200/1000) = 1.
    expect(ranked.every((r) => Math.abs(r.lift - 1) < 1e-12)).toBe(true);
    expect(ranked[0]).toMatchObject({ attribute: 'cause', value: 'reconnect', inTail: 10 });
  });

  it('ranks only values on at least max(3, 5 % of the tail) tail proxies', () => {
    expect(minTailCount(0)).toBe(3);
    expect(minTailCount(60)).toBe(3);
    expect(minTailCount(61)).toBe(4);
    expect(minTailCount(200)).toBe(10);
    const counts: AttributeCount[] = [
      { attribute: 'node', value: 'lonely', inTail: 2, overall: 2 },
      { attribute: 'node', value: 'busy', inTail: 3, overall: 30 },
    ];
    expect(rankAttribution(counts, 20, 1000, 10).map((r) => r.value)).toEqual(['busy']);
  });

  it('leads with the node holding most of the tail, not a rarer value found only in it', () => {
    // 10,000 proxies, a tail of 100: 90 of them on node n-007 (100 proxies there); 6 carry an
    // incident packet-loss that no other proxy has. Lift: n-007 (90/100) / (100/10000) = 90;
    // packet-loss (6/100) / (6/10000) = 100, the largest possible. Excess share: n-007
    // 0.9 - 0.01 = 0.89; packet-loss 0.06 - 0.0006 = 0.0594. Lift alone put packet-loss first.
    const counts: AttributeCount[] = [
      { attribute: 'incident', value: 'packet-loss', inTail: 6, overall: 6 },
      { attribute: 'node', value: 'n-007', inTail: 90, overall: 100 },
    ];
    const ranked = rankAttribution(counts, 100, 10_000, 10);
    expect(ranked.map((r) => r.value)).toEqual(['n-007', 'packet-loss']);
    expect(ranked[0]?.lift).toBeCloseTo(90, 10);
    expect(ranked[1]?.lift).toBeCloseTo(100, 10);
  });

  it('gives nothing to a value as common in the tail as overall, however large', () => {
    // az a: half the tail, half of all proxies (lift 1, excess share 0); the incident: 5 of a
    // tail of 100 among 10,000 (excess share 0.05 - 0.0005 > 0).
    const counts: AttributeCount[] = [
      { attribute: 'az', value: 'a', inTail: 50, overall: 5000 },
      { attribute: 'incident', value: 'reconnect', inTail: 5, overall: 5 },
    ];
    expect(rankAttribution(counts, 100, 10_000, 10).map((r) => r.value)).toEqual([
      'reconnect',
      'a',
    ]);
  });

  it('breaks ties in excess share by lift, then tail count, then name, and keeps the limit', () => {
    // A tail of 10 among 100. Excess share x 10 x 100 = inTail x 100 - overall x 10:
    // reconnect 800 - 80 = 720; n-a and n-b 400 - 40 = 360; x 500 - 50 = 450 and y 600 - 150
    // = 450 tie, and x's lift (5/10) / (5/100) = 10 beats y's (6/10) / (15/100) = 4.
    const counts: AttributeCount[] = [
      { attribute: 'node', value: 'n-b', inTail: 4, overall: 4 },
      { attribute: 'node', value: 'n-a', inTail: 4, overall: 4 },
      { attribute: 'cause', value: 'reconnect', inTail: 8, overall: 8 },
      { attribute: 'pool', value: 'y', inTail: 6, overall: 15 },
      { attribute: 'pool', value: 'x', inTail: 5, overall: 5 },
    ];
    expect(rankAttribution(counts, 10, 100, 10).map((r) => r.value)).toEqual([
      'reconnect',
      'x',
      'y',
      'n-a',
      'n-b',
    ]);
    const ranked = rankAttribution(counts, 10, 100, 2);
    expect(ranked.map((r) => r.value)).toEqual(['reconnect', 'x']);
    expect(ranked.map((r) => r.lift)).toEqual([10, 10]);
  });

  it('ties values found only in the tail exactly, whatever floating point makes of them', () => {
    // (280/759) / (280/19988) and (180/759) / (180/19988) differ in their last bits.
    const counts: AttributeCount[] = [
      { attribute: 'incident', value: 'reconnect', inTail: 160, overall: 160 },
      { attribute: 'incident', value: 'retry-backoff', inTail: 180, overall: 180 },
      { attribute: 'cause', value: 'reconnect-backoff', inTail: 280, overall: 280 },
    ];
    const ranked = rankAttribution(counts, 759, 19988, 10);
    expect(ranked.map((r) => r.inTail)).toEqual([280, 180, 160]);
  });

  it('returns nothing for an empty tail', () => {
    expect(rankAttribution([], 0, 100, 10)).toEqual([]);
  });
});

describe('rankAttribution: edges and ties', () => {
  /** Every rotation of `counts` ranks alike: the order counts arrive in decides nothing. */
  const rankedEveryWay = (counts: AttributeCount[], tail: number, total: number, limit = 10) => {
    const rankings = counts.map((_, k) =>
      rankAttribution([...counts.slice(k), ...counts.slice(0, k)], tail, total, limit).map(
        (r) => `${r.attribute}=${r.value}`,
      ),
    );
    const reversed = rankAttribution([...counts].reverse(), tail, total, limit).map(
      (r) => `${r.attribute}=${r.value}`,
    );
    for (const r of [...rankings, reversed]) expect(r).toEqual(rankings[0]);
    return rankings[0];
  };

  it('ranks nothing without a tail or without proxies, whatever the counts', () => {
    const counts: AttributeCount[] = [{ attribute: 'node', value: 'n-1', inTail: 5, overall: 5 }];
    expect(rankAttribution(counts, 0, 100, 10)).toEqual([]);
    expect(rankAttribution(counts, 5, 0, 10)).toEqual([]);
    expect(rankAttribution(counts, 5, 100, 0)).toEqual([]);
  });

  it('does not rank a value counted on no proxy overall (no lift to state)', () => {
    const counts: AttributeCount[] = [
      { attribute: 'node', value: 'uncounted', inTail: 5, overall: 0 },
      { attribute: 'node', value: 'n-1', inTail: 5, overall: 5 },
    ];
    expect(rankAttribution(counts, 10, 100, 10).map((r) => r.value)).toEqual(['n-1']);
  });

  it('states share and lift: half the tail on a tenth of the proxies is lift 5', () => {
    // A tail of 20 among 400: 10 of the tail on node n-1, which holds 40 proxies.
    const [r] = rankAttribution(
      [{ attribute: 'node', value: 'n-1', inTail: 10, overall: 40 }],
      20,
      400,
      10,
    );
    expect(r).toEqual({
      attribute: 'node',
      value: 'n-1',
      inTail: 10,
      overall: 40,
      share: 0.5,
      lift: 5,
    });
  });

  it('among values as common in the tail as overall, the one on more tail proxies first', () => {
    // A tail of 20 among 200: each value has lift 1 (excess share 0), az b on 10 tail proxies.
    const counts: AttributeCount[] = [
      { attribute: 'az', value: 'a', inTail: 5, overall: 50 },
      { attribute: 'az', value: 'b', inTail: 10, overall: 100 },
      { attribute: 'az', value: 'c', inTail: 4, overall: 40 },
    ];
    expect(rankedEveryWay(counts, 20, 200)).toEqual(['az=b', 'az=a', 'az=c']);
  });

  it('breaks a full tie by attribute name, then by value', () => {
    const same = { inTail: 4, overall: 4 };
    const counts: AttributeCount[] = [
      { attribute: 'pool', value: 'a', ...same },
      { attribute: 'node', value: 'z', ...same },
      { attribute: 'node', value: 'b', ...same },
      { attribute: 'az', value: 'z', ...same },
      { attribute: 'node', value: 'a', ...same },
    ];
    expect(rankedEveryWay(counts, 10, 100)).toEqual([
      'az=z',
      'node=a',
      'node=b',
      'node=z',
      'pool=a',
    ]);
  });

  it('ranks by excess share first, lift second, tail count third, in any input order', () => {
    // A tail of 10 among 100 (excess x 1000 = inTail x 100 - overall x 10):
    // r 8/8 -> 720; x 5/5 -> 450, lift 10; y 6/15 -> 450, lift 4; a 4/4 -> 360;
    // b 9/60 -> 300; c 10/100 -> 0, lift 1; d 3/30 -> 0, lift 1.
    const counts: AttributeCount[] = [
      { attribute: 'k', value: 'd', inTail: 3, overall: 30 },
      { attribute: 'k', value: 'b', inTail: 9, overall: 60 },
      { attribute: 'k', value: 'y', inTail: 6, overall: 15 },
      { attribute: 'k', value: 'c', inTail: 10, overall: 100 },
      { attribute: 'k', value: 'r', inTail: 8, overall: 8 },
      { attribute: 'k', value: 'a', inTail: 4, overall: 4 },
      { attribute: 'k', value: 'x', inTail: 5, overall: 5 },
    ];
    expect(rankedEveryWay(counts, 10, 100)).toEqual([
      'k=r',
      'k=x',
      'k=y',
      'k=a',
      'k=b',
      'k=c',
      'k=d',
    ]);
    expect(rankedEveryWay(counts, 10, 100, 3)).toEqual(['k=r', 'k=x', 'k=y']);
  });
});
