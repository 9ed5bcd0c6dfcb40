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

  it('breaks ties in lift by tail count, then by name, and keeps the limit', () => {
    const counts: AttributeCount[] = [
      { attribute: 'node', value: 'n-b', inTail: 4, overall: 4 },
      { attribute: 'node', value: 'n-a', inTail: 4, overall: 4 },
      { attribute: 'cause', value: 'reconnect', inTail: 8, overall: 8 },
    ];
    const ranked = rankAttribution(counts, 10, 100, 2);
    expect(ranked.map((r) => r.value)).toEqual(['reconnect', 'n-a']);
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
