import { describe, expect, it } from 'vitest';
import { type Metrics, medianMetrics } from './metrics.ts';

const m = (over: Partial<Metrics>): Metrics => ({
  p50: 100,
  p90: 300,
  p95: 500,
  p96: 560,
  p99: 800,
  'p99.9': 5000,
  mean: 200,
  max: 9000,
  within1s: 96.6,
  missing: 3,
  ...over,
});

describe('medianMetrics', () => {
  it("takes each metric's median, the middle pair's mean when even, skipping missing values", () => {
    const med = medianMetrics([
      m({ p99: 700 }),
      m({ p99: 900 }),
      m({ p99: 800, p50: null }),
      m({ p99: 1000 }),
    ]);
    expect(med.p99).toBe(850); // (800 + 900) / 2
    expect(med.p50).toBe(100);
  });
});
