import type { Propagation, Report, ReportRun, Tail } from '@meshbench/schema';
import { describe, expect, it } from 'vitest';
import { reportView } from './report-view.ts';

const tail: Tail = {
  clock: 'raw',
  clockErrorMs: null,
  thresholdMs: 1000,
  thresholdP: null,
  cut: 'threshold',
  cutRule: 'default',
  medianMs: 50,
  applied: 10,
  tailCount: 0,
  neverConverged: 0,
  causes: [],
  slowest: [],
};

function frozen(mesh: string, changeId: string, expected: number): ReportRun {
  const p = {
    change: { id: changeId, kind: 'endpoint', target: 'hey', action: 'delete', at: 'x', expected },
  } as Propagation;
  return {
    run: {
      id: `${mesh}-id`,
      mesh: { name: mesh, version: '1' },
      benchmark: 'b',
      scenario: 's',
      platform: null,
      topology: {},
      labels: {},
    } as unknown as ReportRun['run'],
    changes: [{ linear: p, log: { ...p, scale: 'log' }, tail }],
    loadResults: [],
  };
}

describe('reportView', () => {
  it('names the frozen runs, pairs their changes and says what differs', () => {
    const report: Report = {
      slug: 's',
      title: 't',
      description: 'd',
      createdAt: '2026-02-01T10:00:00Z',
      runs: [frozen('consul', 'a', 178000), frozen('istio', 'b', 2000)],
      comparability: null,
    };
    const view = reportView(report);
    expect(view.runs.map((r) => [r.key, r.label])).toEqual([
      ['r0', 'consul 1'],
      ['r1', 'istio 1'],
    ]);
    // Different change ids: the first change of each run, paired by position.
    expect(view.pairs).toHaveLength(1);
    expect(view.pairs[0]?.matchedBy).toBe('position');
    expect(view.pairs[0]?.changes.map((c) => [c?.id, c?.log.scale])).toEqual([
      ['a', 'log'],
      ['b', 'log'],
    ]);
    expect(view.differences).toEqual([
      { field: 'proxies', text: '178,000 vs 2,000 proxies' },
      { field: 'change', text: 'change: a vs b' },
    ]);
    expect(view.loadResults).toEqual([[], []]);
  });
});
