import type { Propagation, Run } from '@meshbench/schema';
import { describe, expect, it } from 'vitest';
import { runBmf } from './bmf.ts';

const run = {
  benchmark: 'global-scale',
  scenario: 'endpoint-propagation',
  mesh: { name: 'consul', version: '1.9.5' },
} as Run;
const propagation = {
  percentiles: [
    { p: 50, ms: 72.5 },
    { p: 99, ms: 212.9 },
  ],
  maxMs: 295_000,
  withinMs: 1000,
  withinFraction: 0.75,
  missing: 12,
  clock: {
    corrected: {
      percentiles: [
        { p: 99, ms: 212.8, exact: false, clockErrorMs: 1.2, lower: 211.6, upper: 214 },
      ],
    },
  },
} as unknown as Propagation;

describe('runBmf', () => {
  it('writes a benchmark per change, measures in ms, corrected values with their bounds', () => {
    expect(runBmf(run, [{ id: 'c1', propagation }])).toEqual({
      'global-scale/endpoint-propagation/consul@1.9.5/c1': {
        'propagation-p50-ms': { value: 72.5 },
        'propagation-p99-ms': { value: 212.9 },
        'propagation-max-ms': { value: 295_000 },
        'within-1000ms-pct': { value: 75 },
        'missing-proxies': { value: 12 },
        'propagation-p99-ms-clock-corrected': {
          value: 212.8,
          lower_value: 211.6,
          upper_value: 214,
        },
      },
    });
  });

  it("keeps every measure slug within Bencher's 64 characters", () => {
    const bmf = runBmf(run, [{ id: 'c1', propagation }]);
    for (const measures of Object.values(bmf))
      for (const key of Object.keys(measures)) expect(key.length).toBeLessThanOrEqual(64);
  });
});
