import { describe, expect, it } from 'vitest';
import { decodeFortio } from '../ingest/results/fortio.decoder.ts';
import { publicFixture } from '../ingest/results/test-fixtures.ts';
import { parseJson } from '../ingest/results/values.ts';
import {
  nearestRank,
  percentileFromBuckets,
  withRequestedPercentiles,
} from './bucket-percentiles.ts';

// A real Fortio 0.8.1 result: 12000 requests in 27 buckets, no percentiles of its own.
const golden = decodeFortio(
  parseJson(publicFixture('envoyproxy-nighthawk/hist_fortio-data_golden.json')),
).results[0]!;
const bins = golden.histogram!;

describe('percentileFromBuckets on Fortio 0.8.1 golden.json', () => {
  // Counts summed by hand from DurationHistogram.Data (12000 in all):
  //   below 0.020 s: 4289, [0.020, 0.025]: 2706
  //   below 0.050 s: 11400 (Percent 95), [0.050, 0.060]: 206
  //   below 0.140 s: 11969, [0.140, 0.160]: 21
  //   below 0.180 s: 11990, [0.180, 0.189759494]: 10 (End = Max)
  it('P96: rank 11520 falls in [50, 60] ms, 120th of its 206 values', () => {
    expect(percentileFromBuckets(bins, 96)).toEqual({
      p: 96,
      ms: 50 + (120 / 206) * 10,
      exact: false,
      method: 'tool-histogram',
      lower: 50,
      upper: 60,
    });
  });

  it('P50: rank 6000 falls in [20, 25] ms, 1711th of 2706', () => {
    const p50 = percentileFromBuckets(bins, 50)!;
    expect(p50).toMatchObject({ lower: 20, upper: 25, method: 'tool-histogram' });
    expect(p50.ms).toBeCloseTo(20 + (1711 / 2706) * 5, 12);
  });

  it('P99.9: rank 11988 (not 11989: 99.9 × 12000 in floating point) in [140, 160] ms', () => {
    expect(nearestRank(99.9, 12000)).toBe(11988);
    const p = percentileFromBuckets(bins, 99.9)!;
    expect(p).toMatchObject({ lower: 140, upper: 160 });
    expect(p.ms).toBeCloseTo(140 + (19 / 21) * 20, 12);
  });

  it('P100 is the last bucket’s end, the maximum', () => {
    expect(percentileFromBuckets(bins, 100)).toMatchObject({
      ms: 189.759494,
      lower: 180,
      upper: 189.759494,
    });
  });

  it('adds only what the file lacks, sorted, and keeps what it states', () => {
    const stated = [{ p: 50, ms: 22, exact: false, method: 'reported' as const }];
    const out = withRequestedPercentiles(stated, bins, [96, 50, 96]);
    expect(out.map((x) => [x.p, x.method])).toEqual([
      [50, 'reported'],
      [96, 'tool-histogram'],
    ]);
    expect(withRequestedPercentiles(stated, null, [96])).toBe(stated);
  });

  it('knows nothing of an empty histogram', () => {
    expect(percentileFromBuckets([], 50)).toBeNull();
    expect(percentileFromBuckets([{ fromMs: 1, toMs: 2, count: 0 }], 50)).toBeNull();
  });

  it('is exact where the bucket is a single value', () => {
    const one = [
      { fromMs: 1, toMs: 1, count: 3 },
      { fromMs: 1, toMs: 5, count: 1 },
    ];
    expect(percentileFromBuckets(one, 50)).toMatchObject({ ms: 1, exact: true });
  });
});
