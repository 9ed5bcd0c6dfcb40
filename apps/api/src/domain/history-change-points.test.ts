import type { HistoryPoint } from '@meshbench/schema';
import { describe, expect, it } from 'vitest';
import { historyChangePoints } from './history-change-points.ts';

const detection = { maxPValue: 0.001, minMagnitude: 0, minSegment: 1, windowLen: 50 };
let next = 0;
const id = () => `00000000-0000-4000-8000-${String(++next).padStart(12, '0')}`;
function point(mesh: string, value: number | null, labels: Record<string, string> = {}) {
  return {
    runId: id(),
    startedAt: '2026-02-01T00:00:00.000Z',
    mesh: { name: mesh, version: null },
    scenario: 'churn',
    labels,
    value,
    accuracy: null,
    pooledChanges: null,
  } satisfies HistoryPoint;
}
// Ten runs about 10, then ten about 20: one step, at the eleventh run.
const noise = [0.1, -0.1, 0.2, -0.2, 0, 0.1, -0.1, 0.05, -0.05, 0];
const step = (mesh: string, labels?: Record<string, string>) => [
  ...noise.map((n) => point(mesh, 10 + n, labels)),
  ...noise.map((n) => point(mesh, 20 + n, labels)),
];

describe('historyChangePoints', () => {
  it('finds the step of a series, named by the first run after it and the last before', () => {
    const runs = step('istio');
    const [c, ...rest] = historyChangePoints(runs, detection);
    expect(rest).toEqual([]);
    expect(c).toMatchObject({
      scenario: 'churn',
      mesh: 'istio',
      branch: null,
      runId: runs[10]?.runId,
      previousRunId: runs[9]?.runId,
      alert: null,
    });
    // The noise sums to zero: the means are 10 and 20, a change of +100 %.
    expect(c?.before).toBeCloseTo(10, 9);
    expect(c?.after).toBeCloseTo(20, 9);
    expect(c?.change).toBeCloseTo(1, 9);
    expect(c?.pValue).toBeLessThan(0.001);
  });

  it('cuts the history into series by scenario, mesh and branch, and leaves out points without a value', () => {
    const flat = noise.map((n) => point('linkerd', 10 + n));
    const main = step('istio', { branch: 'main' });
    // A missing value between the two halves: the step is still between runs 9 and 10 of the
    // values, whatever the missing run's place.
    const withGap = [
      ...main.slice(0, 10),
      point('istio', null, { branch: 'main' }),
      ...main.slice(10),
    ];
    const other = noise.map((n) => point('istio', 30 + n, { branch: 'dev' }));
    const found = historyChangePoints([...flat, ...withGap, ...other], detection);
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject({
      mesh: 'istio',
      branch: 'main',
      runId: main[10]?.runId,
      previousRunId: main[9]?.runId,
    });
    expect(historyChangePoints([], detection)).toEqual([]);
  });
});
