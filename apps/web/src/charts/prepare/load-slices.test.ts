import { describe, expect, it } from 'vitest';
import { prepareLatencyVsConnections } from './load-latency.ts';
import { point } from './load-results.fixture.ts';
import {
  asRuns,
  connectionsGroups,
  defaultAxis,
  pointsInSlice,
  settleSlice,
  stepOf,
} from './load-results.ts';

// The demo's shape: a connections sweep at 1,000 RPS (Fortio), and a rate sweep at 16
// connections with no target (Istio's perf CSV).
const sweep = [
  point('baseline', 2, { achievedRps: 998, p50: 0.4 }),
  point('baseline', 16, { achievedRps: 999, p50: 0.6 }),
  point('both', 2, { achievedRps: 997, p50: 1.9 }),
  point('both', 16, { achievedRps: 996, p50: 2.2 }),
  point('both', 16, { targetRps: null, achievedRps: 100, p50: 1.5 }),
  point('both', 16, { targetRps: null, achievedRps: 4000, p50: 3.1 }),
];

describe('slices of the load results', () => {
  it('groups points by connection count, the fullest rate sweep first by default', () => {
    const groups = connectionsGroups(asRuns(sweep));
    expect(groups.map((g) => [g.key, g.points, g.sweepPoints])).toEqual([
      ['connections:2', 2, 2],
      ['connections:16', 4, 4],
    ]);
    expect(settleSlice(asRuns(sweep), 'rps', null).slice).toEqual({
      axis: 'rps',
      key: 'connections:16',
    });
    expect(settleSlice(asRuns(sweep), 'rps', 'connections:2').label).toBe('2 connections');
  });

  it('draws latency against the rate achieved at one connection count', () => {
    const l = prepareLatencyVsConnections(
      asRuns(sweep),
      { axis: 'rps', key: 'connections:16' },
      50,
    );
    expect(l.lines?.rows).toEqual([
      { x: 100, s0_baseline: null, s0_both: 1.5 },
      { x: 996, s0_baseline: null, s0_both: 2.2 },
      { x: 999, s0_baseline: 0.6, s0_both: null },
      { x: 4000, s0_baseline: null, s0_both: 3.1 },
    ]);
    // 4,000 -> 4,000 and 4 % of room; ticks every 1,000.
    expect(l.lines?.x).toEqual({
      scale: 'linear',
      domain: [0, 4160],
      ticks: [0, 1000, 2000, 3000, 4000],
    });
  });

  it('still slices by rate along connections', () => {
    const { points } = pointsInSlice(asRuns(sweep), { axis: 'connections', key: 'target:1000' });
    expect(points.map((p) => [p.result.mode, p.x])).toEqual([
      ['baseline', 2],
      ['baseline', 16],
      ['both', 2],
      ['both', 16],
    ]);
  });

  it('opens on connections when a rate holds a sweep, else on the rate', () => {
    expect(defaultAxis(asRuns(sweep))).toBe('connections');
    // A stages-like run: one connection count, four rates: one dot per chart along connections.
    const steps = [100, 500, 1000, 2000].map((rps) =>
      point('both', 64, { targetRps: rps, achievedRps: rps, p50: 1 }),
    );
    expect(defaultAxis(asRuns(steps))).toBe('rps');
  });

  it('counts two runs at about the same rate as one step', () => {
    expect(stepOf('rps', 998.2)).toBe(1000);
    expect(stepOf('rps', 1493)).toBe(1500);
    expect(stepOf('connections', 16)).toBe(16);
  });
});
