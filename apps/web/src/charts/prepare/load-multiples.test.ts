import { describe, expect, it } from 'vitest';
import { prepareModeMultiples, stepRows } from './load-multiples.ts';
import { point, run } from './load-results.fixture.ts';
import { percentileMs } from './load-results.ts';

const istio = run('istio', '#466bb0', [
  point('baseline', 2, { p50: 0.4 }),
  point('both', 2, { p50: 2.0 }),
  point('both', 4, { p50: 2.4 }),
]);
const istio2 = {
  ...run('istio #2', '#1f3b73', [point('both', 2, { p50: 1.8 }), point('both', 4, { p50: 9.5 })]),
  dash: '6 3',
};

describe('small multiples per mode', () => {
  it('draws one chart per mode, a line per run, on shared axes', () => {
    const m = prepareModeMultiples([istio, istio2], 'target:1000', (r) => percentileMs(r, 50));
    expect(m.series).toEqual([
      { key: 'r0', label: 'istio', color: '#466bb0', dash: '' },
      { key: 'r1', label: 'istio #2', color: '#1f3b73', dash: '6 3' },
    ]);
    expect(m.multiples.map((x) => x.mode)).toEqual(['baseline', 'both']);
    const [baseline, both] = m.multiples;
    // The baseline chart: only the run that has one.
    expect(baseline?.lines?.series.map((s) => s.key)).toEqual(['r0']);
    expect(baseline?.lines?.rows).toEqual([{ x: 2, r0: 0.4 }]);
    expect(both?.lines?.rows).toEqual([
      { x: 2, r0: 2.0, r1: 1.8 },
      { x: 4, r0: 2.4, r1: 9.5 },
    ]);
    // One y axis for all: up to 9.5 -> 10.
    expect(baseline?.lines?.y.domain).toEqual([0, 10]);
    expect(both?.lines?.y.domain).toEqual([0, 10]);
    expect(baseline?.lines?.x.ticks).toEqual([2, 4]);
  });

  it('pairs the runs step by step, about the same rate counting as one step', () => {
    const a = run('a', '#000', [point('both', 16, { targetRps: null, achievedRps: 998 })]);
    const b = run('b', '#111', [point('both', 16, { targetRps: null, achievedRps: 1004 })]);
    const rows = stepRows([a, b], { axis: 'rps', key: 'connections:16' });
    expect(rows.map((r) => [r.mode, r.step, r.points.map((p) => p?.x)])).toEqual([
      ['both', 1000, [998, 1004]],
    ]);
  });
});
