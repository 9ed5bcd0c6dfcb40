import type { PercentileValue } from '@meshbench/schema';
import { describe, expect, it } from 'vitest';
import { comparabilityOf, type LoadPointFacts, type RunFacts } from './comparability.ts';

const point = (over: Partial<LoadPointFacts> = {}): LoadPointFacts => ({
  mode: 'both',
  connections: 64,
  targetRps: 1000,
  achievedRps: 1000,
  clientCpuCoresMax: null,
  labels: {},
  percentiles: [{ p: 99, ms: 12, exact: false, method: 'reported' }],
  ...over,
});
const run = (id: string, where: string, over: Partial<RunFacts> = {}): RunFacts => ({
  id,
  where,
  meshVersion: '1.21.0',
  topology: { nodes: 10, instances: 100 },
  labels: {},
  loadResults: [],
  ...over,
});
const BASE = '00000000-0000-4000-8000-000000000001';
const HERE = '00000000-0000-4000-8000-000000000002';

describe('comparabilityOf', () => {
  it('finds nothing in no runs, or one run on its own that is sound', () => {
    expect(comparabilityOf([])).toEqual([]);
    expect(comparabilityOf([run(BASE, 'here', { loadResults: [point()] })])).toEqual([]);
  });

  it('finds nothing in like runs', () => {
    expect(
      comparabilityOf(
        [
          run(BASE, 'in the baseline', { loadResults: [point()] }),
          run(HERE, 'here', { loadResults: [point()] }),
        ],
        ['mesh.version'],
      ),
    ).toEqual([]);
  });

  it('names a different topology', () => {
    const w = comparabilityOf([
      run(BASE, 'in the baseline'),
      run(HERE, 'here', { topology: { nodes: 5, instances: 100 } }),
    ]);
    expect(w).toEqual([
      {
        kind: 'topology',
        runIds: [HERE, BASE],
        reason: 'different topology: nodes 5 here, 10 in the baseline',
      },
    ]);
  });

  it('holds a different mesh version only when pinned', () => {
    const runs = [
      run(BASE, 'in the baseline', { meshVersion: '1.21.0' }),
      run(HERE, 'here', { meshVersion: '1.22.1' }),
    ];
    expect(comparabilityOf(runs)).toEqual([]);
    expect(comparabilityOf(runs, ['mesh.version'])).toEqual([
      {
        kind: 'mesh-version',
        runIds: [HERE, BASE],
        reason:
          'different mesh version, pinned by same:mesh.version: 1.22.1 here, 1.21.0 in the baseline',
      },
    ]);
    expect(
      comparabilityOf(
        [run(BASE, 'in the baseline', { meshVersion: null }), runs[1] as RunFacts],
        ['mesh.version'],
      )[0]?.reason,
    ).toBe(
      'different mesh version, pinned by same:mesh.version: 1.22.1 here, none stated in the baseline',
    );
  });

  it('finds a rate more than 5 % short of its target in either run, and not one exactly 5 % short', () => {
    // 9,400 of 10,000: 6 % below. 9,500 of 10,000: exactly 5 %, allowed.
    const w = comparabilityOf([
      run(BASE, 'in the baseline', {
        loadResults: [point({ targetRps: 10000, achievedRps: 9400 })],
      }),
      run(HERE, 'here', { loadResults: [point({ targetRps: 10000, achievedRps: 9500 })] }),
    ]);
    expect(w).toEqual([
      {
        kind: 'rps-shortfall',
        runIds: [BASE],
        reason:
          'achieved RPS below target by more than 5 % in the baseline: 9,400 of 10,000 RPS (6 % below) at both, 64 connections, 10,000 RPS target',
      },
    ]);
    // Unknown or "max" targets are never short.
    expect(
      comparabilityOf([
        run(BASE, 'a', { loadResults: [point({ targetRps: null, achievedRps: 10 })] }),
        run(HERE, 'b', { loadResults: [point({ achievedRps: null })] }),
      ]),
    ).toEqual([]);
  });

  it('lists three short points and counts the rest', () => {
    const short = [1, 2, 3, 4, 5].map((c) =>
      point({ connections: c, targetRps: 100, achievedRps: 50 }),
    );
    const [w] = comparabilityOf([
      run(BASE, 'in the baseline'),
      run(HERE, 'here', { loadResults: short }),
    ]);
    expect(w?.reason).toBe(
      'achieved RPS below target by more than 5 % here: 50 of 100 RPS (50 % below) at both, 1 connections, 100 RPS target; 50 of 100 RPS (50 % below) at both, 2 connections, 100 RPS target; 50 of 100 RPS (50 % below) at both, 3 connections, 100 RPS target; and 2 more load points',
    );
  });

  it('finds a generator saturated by its label or by its CPU peak against generator.cores', () => {
    const w = comparabilityOf([
      // 3.8 of 4 cores is exactly 95 %: saturated; 3.7 (92.5 %) is not.
      run(BASE, 'in the baseline', {
        labels: { 'generator.cores': '4' },
        loadResults: [
          point({ clientCpuCoresMax: 3.8 }),
          point({ connections: 8, clientCpuCoresMax: 3.7 }),
        ],
      }),
      run(HERE, 'here', {
        loadResults: [point({ labels: { 'generator.saturated': 'true' } })],
      }),
    ]);
    expect(w).toEqual([
      {
        kind: 'generator-saturated',
        runIds: [BASE],
        reason:
          'load generator saturated in the baseline: client CPU peak 3.8 of 4 cores (95 %) at both, 64 connections, 1,000 RPS target',
      },
      {
        kind: 'generator-saturated',
        runIds: [HERE],
        reason:
          'load generator saturated here: generator.saturated=true at both, 64 connections, 1,000 RPS target',
      },
    ]);
    // No cores stated: the CPU peak alone says nothing.
    expect(
      comparabilityOf([
        run(BASE, 'a', { loadResults: [point({ clientCpuCoresMax: 64 })] }),
        run(HERE, 'b'),
      ]),
    ).toEqual([]);
  });

  it('finds a percentile exact at a load point in one run and estimated at the same point in the other', () => {
    const exact = point({ percentiles: [{ p: 99, ms: 12.5, exact: true, method: 'raw' }] });
    const hdr = point({
      percentiles: [{ p: 99, ms: 12.51, exact: false, method: 'hdr', relativeError: 0.001 }],
    });
    expect(
      comparabilityOf([
        run(BASE, 'in the baseline', { loadResults: [exact] }),
        run(HERE, 'here', { loadResults: [hdr] }),
      ]),
    ).toEqual([
      {
        kind: 'percentile-exactness',
        runIds: [HERE, BASE],
        reason:
          'percentiles of different exactness: P99 at both, 64 connections, 1,000 RPS target is estimated (12.51 ms, hdr, ± 0.1 %) here, exact (12.5 ms, nearest rank over raw values) in the baseline',
      },
    ]);
    // A bucket bound, and points that do not match (another rate), are told or left alone.
    const bucket = point({
      percentiles: [
        { p: 99, ms: 11, exact: false, method: 'tool-histogram', lower: 10, upper: 12 },
      ],
    });
    expect(
      comparabilityOf([
        run(BASE, 'a', { loadResults: [exact] }),
        run(HERE, 'b', { loadResults: [bucket] }),
      ])[0]?.reason,
    ).toBe(
      'percentiles of different exactness: P99 at both, 64 connections, 1,000 RPS target is estimated (11 ms, tool-histogram, between 10 and 12 ms) b, exact (12.5 ms, nearest rank over raw values) a',
    );
    expect(
      comparabilityOf([
        run(BASE, 'a', { loadResults: [exact] }),
        run(HERE, 'b', { loadResults: [{ ...hdr, targetRps: 2000, achievedRps: 2000 }] }),
      ]),
    ).toEqual([]);
  });

  it('says how each estimate is bounded, as the reason shows it', () => {
    const exact = point({ percentiles: [{ p: 99, ms: 12.5, exact: true, method: 'raw' }] });
    const against = (x: PercentileValue) =>
      comparabilityOf([
        run(BASE, 'a', { loadResults: [exact] }),
        run(HERE, 'b', { loadResults: [point({ percentiles: [x] })] }),
      ])[0]?.reason;
    const prefix =
      'percentiles of different exactness: P99 at both, 64 connections, 1,000 RPS target is';
    const suffix = 'b, exact (12.5 ms, nearest rank over raw values) a';
    // Clock-corrected: within clockErrorMs; numbers to two decimals with thousands separators.
    expect(
      against({ p: 99, ms: 1234.567, exact: false, method: 'clock-corrected', clockErrorMs: 2.5 }),
    ).toBe(`${prefix} estimated (1,234.57 ms, clock-corrected, ± 2.5 ms) ${suffix}`);
    // A relative error as a percentage to one decimal (0.016: 1.6 %).
    expect(against({ p: 99, ms: 12, exact: false, method: 'ddsketch', relativeError: 0.016 })).toBe(
      `${prefix} estimated (12 ms, ddsketch, ± 1.6 %) ${suffix}`,
    );
    // Buckets open at either end.
    expect(
      against({
        p: 99,
        ms: 11,
        exact: false,
        method: 'exponential-histogram',
        lower: null,
        upper: 16,
      }),
    ).toBe(`${prefix} estimated (11 ms, exponential-histogram, between -∞ and 16 ms) ${suffix}`);
    expect(
      against({
        p: 99,
        ms: 11,
        exact: false,
        method: 'explicit-histogram',
        lower: 10,
        upper: null,
      }),
    ).toBe(`${prefix} estimated (11 ms, explicit-histogram, between 10 and ∞) ${suffix}`);
    // Nothing said: as the tool reported it, estimated, with no bound.
    expect(against({ p: 99, ms: 12 })).toBe(
      `${prefix} estimated (12 ms, reported, no bound known) ${suffix}`,
    );
    // One bound alone is no interval.
    expect(against({ p: 99, ms: 12, exact: false, method: 'summary', lower: 10 })).toBe(
      `${prefix} estimated (12 ms, summary, no bound known) ${suffix}`,
    );
    expect(against({ p: 99, ms: 12, exact: false, method: 'summary', upper: 14 })).toBe(
      `${prefix} estimated (12 ms, summary, no bound known) ${suffix}`,
    );
  });

  it('names the first percentile of a point that differs, and only percentiles both runs have', () => {
    const here = point({
      percentiles: [
        { p: 50, ms: 5, exact: true, method: 'raw' },
        { p: 95, ms: 9, exact: false, method: 'reported' },
        { p: 99, ms: 12, exact: false, method: 'reported' },
        { p: 99.9, ms: 14, exact: false, method: 'reported' },
      ],
    });
    const base = point({
      percentiles: [
        { p: 50, ms: 5, exact: true, method: 'raw' },
        { p: 99, ms: 11, exact: true, method: 'raw' },
        { p: 99.9, ms: 13, exact: true, method: 'raw' },
      ],
    });
    // P50 agrees, P95 is not in the baseline, P99 and P99.9 differ: the point once, by P99.
    expect(
      comparabilityOf([
        run(BASE, 'a', { loadResults: [base] }),
        run(HERE, 'b', { loadResults: [here] }),
      ])[0]?.reason,
    ).toBe(
      'percentiles of different exactness: P99 at both, 64 connections, 1,000 RPS target is estimated (12 ms, reported, no bound known) b, exact (11 ms, nearest rank over raw values) a',
    );
    // A baseline percentile that does not say is estimated, against an exact one here.
    expect(
      comparabilityOf([
        run(BASE, 'a', { loadResults: [point({ percentiles: [{ p: 99, ms: 12 }] })] }),
        run(HERE, 'b', {
          loadResults: [point({ percentiles: [{ p: 99, ms: 11, exact: true, method: 'raw' }] })],
        }),
      ])[0]?.reason,
    ).toBe(
      'percentiles of different exactness: P99 at both, 64 connections, 1,000 RPS target is exact (11 ms, nearest rank over raw values) b, estimated (12 ms, reported, no bound known) a',
    );
    // Both estimated, one saying so and one not: alike.
    const unsaid = point({ percentiles: [{ p: 99, ms: 12 }] });
    expect(
      comparabilityOf([
        run(BASE, 'a', { loadResults: [point()] }),
        run(HERE, 'b', { loadResults: [unsaid] }),
      ]),
    ).toEqual([]);
  });

  it('lists exactly three points with no count after them', () => {
    const short = [1, 2, 3].map((c) => point({ connections: c, targetRps: 100, achievedRps: 90 }));
    expect(
      comparabilityOf([run(BASE, 'in the baseline'), run(HERE, 'here', { loadResults: short })])[0]
        ?.reason,
    ).toMatch(/at both, 3 connections, 100 RPS target$/);
  });

  it('counts one more load point in the singular', () => {
    const short = [1, 2, 3, 4].map((c) =>
      point({ mode: 'baseline', connections: c, targetRps: 100, achievedRps: 90 }),
    );
    expect(
      comparabilityOf([run(BASE, 'in the baseline'), run(HERE, 'here', { loadResults: short })])[0]
        ?.reason,
    ).toMatch(/; and 1 more load point$/);
  });

  it('names a point by what it has, and the shortfall to one decimal', () => {
    // 9,333 of 10,000 is 6.67 % below; a point without connections or target says so by omission.
    const w = comparabilityOf([
      run(BASE, 'in the baseline'),
      run(HERE, 'here', {
        loadResults: [
          point({ connections: null, targetRps: 10000, achievedRps: 9333 }),
          point({ connections: 1500, targetRps: 0, achievedRps: 0 }),
          point({ connections: 1500, targetRps: 100, achievedRps: 200 }),
        ],
      }),
    ]);
    // A target of 0 and a rate above its target are never short.
    expect(w).toEqual([
      {
        kind: 'rps-shortfall',
        runIds: [HERE],
        reason:
          'achieved RPS below target by more than 5 % here: 9,333 of 10,000 RPS (6.7 % below) at both, 10,000 RPS target',
      },
    ]);
  });

  it('holds each other run against the first, on nodes then instances', () => {
    const w = comparabilityOf(
      [
        run(BASE, 'in the baseline', { topology: { nodes: 10, instances: 1000 } }),
        run(HERE, 'here', { topology: { nodes: 10, instances: 1500 } }),
        // No topology, or a side without the count: nothing to hold against.
        run('c', 'in run c', { topology: null }),
        run('d', 'in run d', { topology: { instances: 1000 } }),
        run('e', 'in run e', { topology: { nodes: 10 }, meshVersion: null }),
      ],
      ['mesh.version'],
    );
    // A baseline with no topology, or without the count the other run has: nothing either.
    expect(
      comparabilityOf([run(BASE, 'a', { topology: null }), run(HERE, 'b')]).map((x) => x.kind),
    ).toEqual([]);
    expect(
      comparabilityOf([run(BASE, 'a', { topology: { nodes: 10 } }), run(HERE, 'b')]).map(
        (x) => x.kind,
      ),
    ).toEqual([]);
    expect(w).toEqual([
      {
        kind: 'topology',
        runIds: [HERE, BASE],
        reason: 'different topology: instances 1,500 here, 1,000 in the baseline',
      },
      {
        kind: 'mesh-version',
        runIds: ['e', BASE],
        reason:
          'different mesh version, pinned by same:mesh.version: none stated in run e, 1.21.0 in the baseline',
      },
    ]);
  });

  it("reads saturation labels from the point over the run's, and only usable core counts", () => {
    const saturated = (labels: Record<string, string>, p: Partial<LoadPointFacts> = {}) =>
      comparabilityOf([run(BASE, 'here', { loadResults: [point({ ...p, labels })] })]).map(
        (w) => w.reason,
      );
    // The label's value in any case and spacing.
    expect(saturated({ 'generator.saturated': ' True ' })).toEqual([
      'load generator saturated here: generator.saturated=true at both, 64 connections, 1,000 RPS target',
    ]);
    expect(saturated({ 'generator.saturated': 'false' })).toEqual([]);
    // A point with no target rate (a "max" run) is named without one.
    expect(saturated({ 'generator.saturated': 'true' }, { targetRps: null })).toEqual([
      'load generator saturated here: generator.saturated=true at both, 64 connections',
    ]);
    // The point's label wins over the run's.
    expect(
      comparabilityOf([
        run(BASE, 'here', {
          labels: { 'generator.saturated': 'true' },
          loadResults: [point({ labels: { 'generator.saturated': 'false' } })],
        }),
      ]),
    ).toEqual([]);
    // 3.9 of 4 cores: 97.5 %.
    expect(saturated({ 'generator.cores': '4' }, { clientCpuCoresMax: 3.9 })).toEqual([
      'load generator saturated here: client CPU peak 3.9 of 4 cores (97.5 %) at both, 64 connections, 1,000 RPS target',
    ]);
    // Cores that are no number, or none, or a point with no CPU peak: nothing to hold it to.
    expect(saturated({ 'generator.cores': 'four' }, { clientCpuCoresMax: 3.9 })).toEqual([]);
    expect(saturated({ 'generator.cores': '0' }, { clientCpuCoresMax: 3.9 })).toEqual([]);
    expect(saturated({ 'generator.cores': '' }, { clientCpuCoresMax: 0 })).toEqual([]);
    expect(saturated({ 'generator.cores': '4' }, { clientCpuCoresMax: null })).toEqual([]);
  });
});
