import { describe, expect, it } from 'vitest';
import { point, run } from '../../../charts/prepare/load-results.fixture.ts';
import { latencyDiffers, loadDeltaRows, percentileInterval } from './load-deltas.ts';

describe('data-plane delta table', () => {
  it('compares each step with the baseline run: percentile and error rate', () => {
    const base = run('istio', '#466bb0', [
      point('both', 16, { p90: 4, errors: 3, requests: 30_000 }),
    ]);
    const other = run('linkerd', '#0e8f77', [
      point('both', 16, { p90: 3, errors: 30, requests: 30_000 }),
      point('both', 32, { p90: 5 }),
    ]);
    const rows = loadDeltaRows([base, other], 'target:1000', 90);
    expect(rows.map((r) => [r.mode, r.step, r.metric])).toEqual([
      ['both', '16 connections', 'P90'],
      ['both', '16 connections', 'Error rate'],
      ['both', '32 connections', 'P90'],
      ['both', '32 connections', 'Error rate'],
    ]);
    const [p90, errors, p90at32] = rows;
    // 3 - 4 = -1 ms, -25 %; neither percentile has a bound or a histogram (a tool's reported
    // number): nothing says the runs differ beyond their noise, so neutral.
    expect(p90?.cells.map((c) => [c.value, c.abs, c.rel, c.verdict])).toEqual([
      ['4.00 ms', '', '', null],
      ['3.00 ms', '-1.00 ms', '-25.0 %', 'same'],
    ]);
    // 3 / 30,000 = 0.01 %; 30 / 30,000 = 0.1 %: +0.09 pp, in counts 3 → 30; beyond the
    // rates' sampling (se 0.000191, 1.96 se 0.000374 < 0.0009): worse.
    expect(errors?.cells.map((c) => [c.value, c.abs, c.rel, c.verdict])).toEqual([
      ['0.01 % (3)', '', '', null],
      ['0.1 % (30)', '+0.090 pp', '3 → 30', 'worse'],
    ]);
    // No baseline point at 32 connections: no difference.
    expect(p90at32?.cells[1]?.abs).toBe('—');
  });

  it('draws an error rate that moved by a handful of errors as counts, neutral', () => {
    const base = run('istio', '#466bb0', [point('both', 16, { errors: 1, requests: 1_000_000 })]);
    const other = run('linkerd', '#0e8f77', [
      point('both', 16, { errors: 2, requests: 1_000_000 }),
    ]);
    const errors = loadDeltaRows([base, other], 'target:1000', 90).find(
      (r) => r.metric === 'Error rate',
    );
    // 2e-6 - 1e-6 = 0.0001 points, "±0.000 pp" at three decimals; one error more of a
    // million is no change the rates can show: "1 → 2", neutral (never "+100 %", worse).
    expect(errors?.cells[1]).toMatchObject({
      abs: '±0.000 pp',
      rel: '1 → 2',
      verdict: 'same',
      relVerdict: 'same',
    });
  });

  /** A histogram of `n` requests in 0.1 ms buckets, normal-ish around `centreMs`. */
  const histogram = (centreMs: number, n: number) => {
    const weights = Array.from({ length: 41 }, (_, i) => Math.exp(-(((i - 20) / 6) ** 2)));
    const total = weights.reduce((a, b) => a + b, 0);
    return weights.map((w, i) => ({
      fromMs: centreMs - 2 + i * 0.1,
      toMs: centreMs - 2 + (i + 1) * 0.1,
      count: Math.round((w / total) * n),
    }));
  };

  it('bounds a percentile by the ranks its sampling allows, read as buckets', () => {
    // 100 requests, one per 1 ms bucket [i, i + 1): P50 at rank 50, 1.96 * sqrt(25) = 9.8:
    // ranks 40 to 60, the buckets [39, 40) and [59, 60).
    const bins = Array.from({ length: 100 }, (_, i) => ({ fromMs: i, toMs: i + 1, count: 1 }));
    expect(percentileInterval(bins, 50)).toEqual([39, 60]);
    // P100: the last rank, no spread.
    expect(percentileInterval(bins, 100)).toEqual([99, 100]);
    expect(percentileInterval(null, 50)).toBeNull();
    expect(percentileInterval([], 50)).toBeNull();
  });

  it('colours a latency difference only when the two steps differ beyond their sampling', () => {
    const at = (centreMs: number, p90: number, n = 30_000) =>
      point('both', 16, { p90, requests: n, histogram: histogram(centreMs, n) });
    const base = run('istio', '#466bb0', [at(4, 4.5)]);
    // 1 ms apart with 30,000 requests each: far beyond the sampling, better.
    const faster = run('linkerd', '#0e8f77', [at(3, 3.5)]);
    expect(loadDeltaRows([base, faster], 'target:1000', 90)[0]?.cells[1]?.verdict).toBe('better');
    // The same distribution, its stated P90 a hair lower: the intervals meet, neutral.
    const same = run('linkerd', '#0e8f77', [at(4, 4.49)]);
    const cell = loadDeltaRows([base, same], 'target:1000', 90)[0]?.cells[1];
    expect(cell?.abs).toBe('-0.010 ms');
    expect(cell?.verdict).toBe('same');
    expect(cell?.relVerdict).toBe('same');
    // 1 ms apart but of 20 requests each: the ranks' spread covers it, neutral.
    const few = run('istio', '#466bb0', [at(4, 4.5, 20)]);
    const fewFaster = run('linkerd', '#0e8f77', [at(3.8, 4.3, 20)]);
    expect(loadDeltaRows([few, fewFaster], 'target:1000', 90)[0]?.cells[1]?.verdict).toBe('same');
  });

  it('without histograms, colours by the stated bounds: apart, or not at all', () => {
    const bounded = (ms: number, lower: number, upper: number) => ({
      result: {
        percentiles: [{ p: 99, ms, exact: false, method: 'hdr' as const, lower, upper }],
        histogram: null,
      },
    });
    expect(latencyDiffers(bounded(10, 9.9, 10.1), bounded(12, 11.9, 12.1), 99)).toBe(true);
    expect(latencyDiffers(bounded(10, 9, 11), bounded(10.5, 10, 11), 99)).toBe(false);
    const reported = (ms: number) => ({
      result: {
        percentiles: [{ p: 99, ms, exact: false, method: 'reported' as const }],
        histogram: null,
      },
    });
    expect(latencyDiffers(reported(10), reported(20), 99)).toBe(false);
  });
});
