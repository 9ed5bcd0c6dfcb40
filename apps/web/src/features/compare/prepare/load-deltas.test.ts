import { describe, expect, it } from 'vitest';
import { point, run } from '../../../charts/prepare/load-results.fixture.ts';
import { loadDeltaRows } from './load-deltas.ts';

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
    // 3 - 4 = -1 ms, -25 %: better.
    expect(p90?.cells.map((c) => [c.value, c.abs, c.rel, c.verdict])).toEqual([
      ['4.00 ms', '', '', null],
      ['3.00 ms', '-1.00 ms', '-25.0 %', 'better'],
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
});
