import { describe, expect, it } from 'vitest';
import { prepareAddedLatency } from './load-added-latency.ts';
import { point, run } from './load-results.fixture.ts';
import { asRuns } from './load-results.ts';

describe('added latency over baseline', () => {
  it('subtracts the baseline at the same connections, per run', () => {
    const a = prepareAddedLatency(
      asRuns([
        point('baseline', 2, { p50: 0.4 }),
        point('baseline', 4, { p50: 0.5 }),
        point('both', 2, { p50: 1.9 }),
        point('both', 4, { p50: 2.0 }),
        point('serveronly', 8, { p50: 1.2 }),
      ]),
      'target:1000',
      50,
    );
    expect(a.hasBaseline).toBe(true);
    expect(a.withoutBaseline).toBe(1);
    // 1.9 - 0.4 = 1.5 (375 % of 0.4); 2.0 - 0.5 = 1.5 (300 % of 0.5).
    expect(a.table.map((r) => [r.mode, r.connections, r.ms, r.baselineMs])).toEqual([
      ['both', 2, 1.9, 0.4],
      ['both', 4, 2.0, 0.5],
    ]);
    expect(a.table[0]?.addedMs).toBeCloseTo(1.5, 12);
    expect(a.table[0]?.addedFraction).toBeCloseTo(3.75, 12);
    expect(a.table[1]?.addedFraction).toBeCloseTo(3, 12);
    expect(a.lines?.series.map((s) => s.key)).toEqual(['s0_both']);
    expect(a.lines?.rows.map((r) => r.x)).toEqual([2, 4]);
    expect(a.lines?.y.domain).toEqual([0, 1.5]);
  });

  it('never takes another run’s baseline', () => {
    const a = prepareAddedLatency(
      [
        run('istio', '#466bb0', [point('baseline', 2, { p50: 1 })]),
        run('linkerd', '#0e8f77', [point('both', 2, { p50: 2 })]),
      ],
      'target:1000',
      50,
    );
    expect(a.table).toEqual([]);
    expect(a.withoutBaseline).toBe(1);
    expect(a.lines).toBeNull();
  });
});
