import type { History } from '@meshbench/schema';
import { describe, expect, it } from 'vitest';
import {
  changePointMarks,
  formatMetric,
  forScenario,
  historyMeshes,
  historyRows,
  historyScenarios,
} from './history.ts';

const point = (mesh: string, value: number | null, branch = 'main') => ({
  runId: `00000000-0000-4000-8000-00000000000${value ?? 0}`,
  startedAt: '2026-02-01T10:00:00.000Z',
  mesh: { name: mesh, version: '1.0' },
  scenario: 's',
  labels: { branch, sha: 'abcdef0123456789' },
  value,
});

describe('history', () => {
  const history: History = {
    metric: 'p99',
    points: [point('consul', 1), point('istio', 2), point('consul', 3)],
    changePoints: [],
    detection: {
      method: 'e-divisive-means-ttest',
      maxPValue: 0.001,
      minMagnitude: 0.05,
      minSegment: 3,
      windowLen: 50,
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
      [2, 's · consul · main', '+50.0 %', '800.0 ms', '1,200.0 ms', '2.0e-5'],
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
