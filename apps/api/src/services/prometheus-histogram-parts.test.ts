// A histogram point whose parts never complete is not lost: after the wait, its parts are
// stored as the series they were sent as, and its row marked released.
import { describe, expect, it } from 'vitest';
import type { MetricRecord } from '../domain/metric-record.ts';
import type {
  MergedParts,
  PrometheusHistogramPartsRepository,
} from '../repositories/prometheus-histogram-parts.repository.ts';
import { histogramPartsAssembler } from './prometheus-histogram-parts.ts';

const row: MergedParts = {
  scope: 'p1',
  family: 'lat_seconds',
  labelsKey: 'k',
  tMs: 1_700_000_000_000,
  tags: { job: 'istiod' },
  runRef: 'run-1',
  environment: null,
  unit: 's',
  startMs: 0,
  buckets: { '0.5': 3 },
  inf: null,
  sum: 2.5,
  count: null,
  exemplars: null,
  state: 'pending',
  les: null,
};

describe('histogram parts that never complete', () => {
  it('are stored as their own series after the wait, and the point marked released', async () => {
    const stored: { records: MetricRecord[]; projectId: string | null }[] = [];
    const marked: { scope: string; state: string; n: number }[] = [];
    const parts = {
      stale: async (olderThanMs: number) => (olderThanMs === 1000 ? [row] : []),
      mark: async (scope: string, points: unknown[], state: string) => {
        marked.push({ scope, state, n: points.length });
      },
      prune: async () => 0,
    } as unknown as PrometheusHistogramPartsRepository;
    const assembler = histogramPartsAssembler({
      parts,
      ingest: {
        writableRefs: async () => new Set(),
        store: async (records, scope) => {
          stored.push({ records, projectId: scope.projectId });
          return {
            stored: records.length,
            duplicates: 0,
            held: 0,
            refused: new Map(),
            refusedRecords: new Map(),
          };
        },
      },
      waitMs: 1000,
    });
    await assembler.sweep(true);
    expect(stored).toHaveLength(1);
    expect(stored[0]?.projectId).toBe('p1');
    expect(
      stored[0]?.records.map((r) => [r.name, r.kind, r.tags, r.last, r.tMs, r.runRef]),
    ).toEqual([
      ['lat_seconds_bucket', 'counter', { job: 'istiod', le: '0.5' }, 3, row.tMs, 'run-1'],
      ['lat_seconds_sum', 'counter', { job: 'istiod' }, 2.5, row.tMs, 'run-1'],
    ]);
    expect(marked).toEqual([{ scope: 'p1', state: 'released', n: 1 }]);
    expect(assembler.counters.released).toBe(1);
  });
});
