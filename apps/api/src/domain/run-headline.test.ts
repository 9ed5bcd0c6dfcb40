import type { PercentileValue } from '@meshbench/schema';
import { describe, expect, it } from 'vitest';
import { dataPlaneHeadline, type HeadlinePoint } from './run-headline.ts';

const point = (over: Partial<HeadlinePoint> & { p99: number }): HeadlinePoint => {
  const { p99, ...rest } = over;
  const percentiles: PercentileValue[] = [{ p: 99, ms: p99 }];
  return {
    mode: 'both',
    connections: 64,
    targetRps: 1000,
    achievedRps: 990,
    percentiles,
    generator: null,
    labels: {},
    merged: null,
    ...rest,
  };
};

describe('dataPlaneHeadline', () => {
  it("reads a step of several generators by its merged row, never one generator's own P99", () => {
    // The stages demo's top step: three generators, the slowest one's own P99 153.7 ms, the
    // merged P99 39.5 ms. Before, the slowest row at the top rate won: 153.7.
    const rows = [
      point({ generator: 'gen-a', p99: 30.1 }),
      point({ generator: 'gen-b', p99: 31.2 }),
      point({ generator: 'gen-c', p99: 153.7 }),
      point({ p99: 39.5, merged: { generators: [{}, {}, {}] } }),
    ];
    expect(dataPlaneHeadline(rows)).toEqual({
      mode: 'both',
      connections: 64,
      config: null,
      rps: 1000,
      p99: { p: 99, ms: 39.5 },
      generators: 3,
      repeats: 1,
    });
  });

  it('takes the slowest step at the top rate, naming its configuration and repeats', () => {
    const rows = [
      point({ targetRps: 500, p99: 90 }),
      point({ p99: 12, labels: { config: 'none_mtls' } }),
      point({ p99: 14, labels: { config: 'v2-stats-nullvm' } }),
      point({ p99: 13, labels: { config: 'v2-stats-nullvm' } }),
    ];
    expect(dataPlaneHeadline(rows)).toMatchObject({
      rps: 1000,
      config: 'v2-stats-nullvm',
      p99: { ms: 14 },
      generators: null,
      repeats: 2,
    });
  });

  it('falls back to the achieved rate, and is null without points', () => {
    expect(
      dataPlaneHeadline([point({ targetRps: null, achievedRps: 2000, p99: 3 })]),
    ).toMatchObject({ rps: 2000, p99: { ms: 3 } });
    expect(dataPlaneHeadline([])).toBeNull();
  });
});
