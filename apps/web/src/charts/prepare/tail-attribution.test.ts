import type { TailAttribution } from '@meshbench/schema';
import { describe, expect, it } from 'vitest';
import { attributionSentence, cutPhrase, formatLift, valuePhrase } from './tail-attribution.ts';

const base: TailAttribution = {
  thresholdMs: 599,
  thresholdP: 99,
  tailCount: 50,
  total: 5000,
  minTailCount: 3,
  values: [],
  clock: 'raw',
  clockErrorMs: null,
};

describe('attributionSentence', () => {
  it('leads with the most over-represented value', () => {
    // 46 of 50 in the tail, 100 of 5000 overall: (46/50) / (100/5000) = 46.
    const a = {
      ...base,
      values: [
        { attribute: 'node', value: 'n-0007', inTail: 46, overall: 100, share: 0.92, lift: 46 },
        { attribute: 'az', value: 'a', inTail: 50, overall: 1700, share: 1, lift: 2.94 },
      ],
    };
    expect(attributionSentence(a)).toBe(
      '46 of the 50 slowest proxies (92 %) are on node n-0007: 46 × over-represented (100 of all 5,000).',
    );
  });

  it('says "all" when every tail proxy carries it', () => {
    const a = {
      ...base,
      values: [{ attribute: 'node', value: 'n-042', inTail: 50, overall: 50, share: 1, lift: 100 }],
    };
    expect(attributionSentence(a)).toBe(
      'All 50 slowest proxies are on node n-042: 100 × over-represented (50 of all 5,000).',
    );
  });

  it('names the first value in the order given whose lift reaches 2', () => {
    // az a covers 90 % of the tail but is 1.5 x as common there: passed over for the node.
    const a = {
      ...base,
      values: [
        { attribute: 'az', value: 'a', inTail: 45, overall: 3000, share: 0.9, lift: 1.5 },
        { attribute: 'node', value: 'n-9', inTail: 15, overall: 15, share: 0.3, lift: 100 },
      ],
    };
    expect(attributionSentence(a)).toBe(
      '15 of the 50 slowest proxies (30 %) are on node n-9: 100 × over-represented (15 of all 5,000).',
    );
  });

  it('says nothing stands out when the top lift is under 2', () => {
    const a = {
      ...base,
      values: [{ attribute: 'az', value: 'a', inTail: 20, overall: 1900, share: 0.4, lift: 1.05 }],
    };
    expect(attributionSentence(a)).toBe(
      'Nothing stands out: no node, cause or attribute is even 2 × as common among the 50 slowest proxies as among all 5,000.',
    );
    expect(attributionSentence({ ...base, values: [] })).toMatch(/^Nothing stands out/);
  });

  it('has nothing to explain without a tail', () => {
    expect(attributionSentence({ ...base, tailCount: 0 })).toMatch(/^No proxy is in the tail/);
  });
});

describe('valuePhrase and formatLift', () => {
  it('words each kind of attribute', () => {
    expect(valuePhrase({ attribute: 'incident', value: 'reconnect' })).toBe(
      'had a reconnect incident',
    );
    expect(valuePhrase({ attribute: 'pool', value: 'big' })).toBe('have pool = big');
    expect(valuePhrase({ attribute: 'incident.az', value: 'us-east-1a' })).toBe(
      'had an incident with az us-east-1a',
    );
    expect(formatLift(2.94)).toBe('2.9');
    expect(formatLift(1000 / 3)).toBe('333');
  });
});

describe('cutPhrase', () => {
  it('names the percentile and its time, or the threshold', () => {
    expect(cutPhrase({ thresholdP: 99, thresholdMs: 251_000 })).toBe('slower than P99 (251 s)');
    expect(cutPhrase({ thresholdP: 99, thresholdMs: null })).toBe('slower than P99');
    expect(cutPhrase({ thresholdP: null, thresholdMs: 1000 })).toBe('slower than 1 s');
  });
});
