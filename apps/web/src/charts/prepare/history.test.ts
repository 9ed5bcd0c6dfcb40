import type { History } from '@meshbench/schema';
import { describe, expect, it } from 'vitest';
import {
  changePointMarks,
  chosenMetric,
  defaultBenchmark,
  exactness,
  formatMetric,
  forScenario,
  historyDateLabel,
  historyMeshes,
  historyRows,
  historyScenarios,
  metricOptions,
} from './history.ts';

const point = (mesh: string, value: number | null, branch = 'main') => ({
  runId: `00000000-0000-4000-8000-00000000000${value ?? 0}`,
  startedAt: '2026-02-01T10:00:00.000Z',
  mesh: { name: mesh, version: '1.0' },
  scenario: 's',
  labels: { branch, sha: 'abcdef0123456789' },
  value,
  accuracy: null,
  pooledChanges: null,
});

describe('history', () => {
  const history: History = {
    metric: 'p99',
    metrics: ['p99'],
    loadPoint: null,
    points: [point('consul', 1), point('istio', 2), point('consul', 3)],
    changePoints: [],
    detection: {
      method: 'e-divisive-means-ttest',
      maxPValue: 0.001,
      minMagnitude: 0.05,
      minSegment: 3,
      windowLen: 50,
      source: 'default',
    },
  };
  it('keeps each value under its own mesh so lines do not join across meshes', () => {
    const rows = historyRows(history);
    expect(rows.map((r) => [r.index, r['m:consul'], r['m:istio']])).toEqual([
      [0, 1, undefined],
      [1, undefined, 2],
      [2, 3, undefined],
    ]);
    expect(rows[0]).toMatchObject({ mesh: 'consul 1.0', branch: 'main', sha: 'abcdef01' });
  });
  it('says what a churn run is read over: its changes pooled', () => {
    const pooled: History = {
      ...history,
      points: [point('consul', 1), { ...point('consul', 2), pooledChanges: 20 }],
    };
    expect(historyRows(pooled).map((r) => r.over)).toEqual(['', 'pooled over 20 changes']);
  });
  it('lists meshes in order of first appearance', () => {
    expect(historyMeshes(history)).toEqual(['consul', 'istio']);
  });
  it('reads each metric in its unit', () => {
    expect(formatMetric('within1s', 96.64)).toBe('96.6 %');
    expect(formatMetric('missing', 1200)).toBe('1,200');
    expect(formatMetric('p99', null)).toBe('—');
  });
  it('puts a change point at the row of its first run after the change, signed and in units', () => {
    const marks = changePointMarks({
      ...history,
      changePoints: [
        {
          scenario: 's',
          mesh: 'consul',
          branch: 'main',
          runId: point('consul', 3).runId,
          previousRunId: point('consul', 1).runId,
          before: 800,
          after: 1200,
          change: 0.5,
          pValue: 0.00002,
          alert: null,
        },
        {
          scenario: 's',
          mesh: 'istio',
          branch: null,
          runId: point('istio', 2).runId,
          previousRunId: point('istio', 2).runId,
          before: 100,
          after: 80,
          change: -0.2,
          pValue: 0.0005,
          alert: { id: '00000000-0000-4000-8000-000000000009', state: 'dismissed' },
        },
      ],
    });
    expect(marks.map((m) => [m.index, m.series, m.change, m.before, m.after, m.pValue])).toEqual([
      [1, 's · istio', '−20.0 %', '100.0 ms', '80.0 ms', '0.0005'],
      [2, 's · consul · main', '+50.0 %', '800.0 ms', '1.200 s', '2.0e-5'],
    ]);
  });
  it('reads one scenario at a time, the one with most runs first', () => {
    const mixed: History = {
      ...history,
      points: [
        { ...point('consul', 1), scenario: 'b' },
        { ...point('consul', 2), scenario: 'a' },
        { ...point('istio', 3), scenario: 'a' },
      ],
      changePoints: [
        {
          scenario: 'b',
          mesh: 'consul',
          branch: null,
          runId: point('consul', 1).runId,
          previousRunId: point('consul', 1).runId,
          before: 1,
          after: 2,
          change: 1,
          pValue: 0.0001,
          alert: null,
        },
      ],
    };
    expect(historyScenarios(mixed)).toEqual([
      { scenario: 'a', runs: 2 },
      { scenario: 'b', runs: 1 },
    ]);
    const a = forScenario(mixed, 'a');
    expect(a.points.map((p) => p.value)).toEqual([2, 3]);
    expect(a.changePoints).toEqual([]);
    expect(forScenario(mixed, 'b').changePoints).toHaveLength(1);
    expect(historyRows(a)[0]).toMatchObject({
      time: Date.parse('2026-02-01T10:00:00.000Z'),
      ciUrl: '',
    });
  });
});

describe('picking a history metric', () => {
  it("takes the URL's metric, else P99 when the runs have it, else their first", () => {
    expect(chosenMetric('joined90', ['p99'])).toBe('joined90');
    expect(chosenMetric(null, null)).toBe('p99');
    expect(chosenMetric(null, ['p50', 'p99'])).toBe('p99');
    // A data-plane benchmark has no P99 of propagation: its first metric is shown.
    expect(chosenMetric(null, ['loadP50', 'loadP99', 'achievedRps', 'errorRate'])).toBe('loadP50');
    expect(chosenMetric('p98', ['joined50', 'cpuPeak'])).toBe('joined50');
  });

  it('offers the metrics the runs have, grouped by kind of run, and keeps the one shown', () => {
    expect(metricOptions(['p99', 'max', 'joined50', 'cpuSteady'], 'p99')).toEqual([
      {
        group: 'Propagation',
        metrics: [
          { metric: 'p99', label: 'P99' },
          { metric: 'max', label: 'time to 100 %' },
        ],
      },
      {
        group: 'Scale-up',
        metrics: [
          { metric: 'joined50', label: 'time to 50 % joined' },
          { metric: 'cpuSteady', label: 'control-plane CPU, after the last join' },
        ],
      },
    ]);
    expect(metricOptions(['loadP99'], 'p99')).toEqual([
      { group: 'Propagation', metrics: [{ metric: 'p99', label: 'P99 (no runs)' }] },
      { group: 'Data plane', metrics: [{ metric: 'loadP99', label: 'P99 latency' }] },
    ]);
  });

  it('reads each kind of value in its unit, and says how exact it is', () => {
    expect(formatMetric('cpuPeak', 43.21)).toBe('43.2 %');
    expect(formatMetric('errorRate', 0.25)).toBe('0.25 %');
    expect(formatMetric('errorRate', 0.0125)).toBe('0.013 %');
    expect(formatMetric('achievedRps', 1999.6)).toBe('2,000 req/s');
    expect(exactness(null)).toBe('');
    expect(exactness({ exact: true, method: 'raw' })).toBe('exact');
    expect(exactness({ exact: false, method: 'reported' })).toBe('reported');
    expect(exactness({ exact: false, method: 'hdr', relativeError: 0.001 })).toBe('±0.1 %');
  });
});

describe('defaultBenchmark', () => {
  it('opens on the benchmark with the most runs over its scenarios, and its largest scenario', () => {
    // consul-scale: 3 + 4 = 7 runs; istio-load: 6 in one scenario.
    const counts = [
      { benchmark: 'istio-load', scenario: 'both', runs: 6 },
      { benchmark: 'consul-scale', scenario: 'small', runs: 3 },
      { benchmark: 'consul-scale', scenario: 'large', runs: 4 },
    ];
    expect(defaultBenchmark(counts)).toEqual({ benchmark: 'consul-scale', scenario: 'large' });
  });

  it('breaks ties by name, and has none without runs', () => {
    expect(
      defaultBenchmark([
        { benchmark: 'b', scenario: 'y', runs: 2 },
        { benchmark: 'a', scenario: 'z', runs: 2 },
        { benchmark: 'a', scenario: 'x', runs: 0 },
      ]),
    ).toEqual({ benchmark: 'a', scenario: 'z' });
    expect(defaultBenchmark([])).toBeNull();
  });
});

describe('historyDateLabel', () => {
  const at = Date.UTC(2026, 1, 1, 9, 59, 30);
  it('gives the day and the minute when the runs span less than two days', () => {
    expect(historyDateLabel(at, 4 * 3_600_000)).toBe('02-01 09:59');
    expect(historyDateLabel(at, 2 * 86_400_000 - 1)).toBe('02-01 09:59');
  });
  it('gives the day from two days on', () => {
    expect(historyDateLabel(at, 2 * 86_400_000)).toBe('2026-02-01');
    expect(historyDateLabel(at, 90 * 86_400_000)).toBe('2026-02-01');
  });
});
