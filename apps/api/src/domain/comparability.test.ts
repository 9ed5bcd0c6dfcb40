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
});
