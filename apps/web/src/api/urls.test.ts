import { describe, expect, it } from 'vitest';
import {
  changesUrl,
  changeTailUrl,
  comparePath,
  perfettoTraceUrl,
  propagationUrl,
  reportUrl,
  runListUrl,
  runResultsUrl,
  runsUrl,
  runUrl,
} from './urls.ts';

describe('api urls', () => {
  it('passes only the filters that are set', () => {
    expect(runsUrl()).toBe('/api/v1/runs');
    expect(runsUrl({ mesh: 'consul', benchmark: '', scenario: undefined })).toBe(
      '/api/v1/runs?mesh=consul',
    );
    expect(runsUrl({ mesh: 'istio', benchmark: 'global scale', scenario: 'a&b' })).toBe(
      '/api/v1/runs?mesh=istio&benchmark=global+scale&scenario=a%26b',
    );
  });
  it('escapes ids in paths', () => {
    expect(runUrl('4-rM0xxaZtuGfXSQwzjx5A')).toBe('/api/v1/runs/4-rM0xxaZtuGfXSQwzjx5A');
    expect(changesUrl('a/b')).toBe('/api/v1/runs/a%2Fb/changes');
    expect(perfettoTraceUrl('r1', "hey's/route")).toBe(
      "/api/v1/runs/r1/changes/hey's%2Froute/perfetto",
    );
  });
  it('asks for the table percentiles and the 1 s share, then the histogram', () => {
    expect(
      propagationUrl('r1', 'hey-endpoint-delete', {
        scale: 'linear',
        bins: 60,
        fromMs: 0,
        toMs: 1000,
      }),
    ).toBe(
      '/api/v1/runs/r1/changes/hey-endpoint-delete/propagation?percentiles=50%2C90%2C95%2C96%2C99%2C99.9&withinMs=1000&bins=60&scale=linear&fromMs=0&toMs=1000',
    );
    expect(propagationUrl('r1', 'c1', { scale: 'log', bins: 60, format: 'csv' })).toBe(
      '/api/v1/runs/r1/changes/c1/propagation?percentiles=50%2C90%2C95%2C96%2C99%2C99.9&withinMs=1000&bins=60&scale=log&format=csv',
    );
  });
});

describe('browse, compare and share urls', () => {
  it('passes every list filter, labels repeated, with sort and page', () => {
    expect(runListUrl({})).toBe('/api/v1/runs');
    expect(
      runListUrl({
        mesh: 'consul',
        version: '',
        labels: ['branch:main', 'pr:12'],
        from: '2026-03-01T00:00:00Z',
        q: 'hey you',
        sort: '-mesh',
        limit: 50,
        offset: 100,
      }),
    ).toBe(
      '/api/v1/runs?mesh=consul&label=branch%3Amain&label=pr%3A12&from=2026-03-01T00%3A00%3A00Z&q=hey+you&sort=-mesh&limit=50&offset=100',
    );
  });
  it('builds the tail, results, reports and compare paths', () => {
    expect(changeTailUrl('r1', 'c 1', { limit: 20 })).toBe(
      '/api/v1/runs/r1/changes/c%201/tail?limit=20',
    );
    expect(changeTailUrl('r1', 'c1', { thresholdP: 99, format: 'csv' })).toBe(
      '/api/v1/runs/r1/changes/c1/tail?thresholdP=99&format=csv',
    );
    expect(runResultsUrl('r1')).toBe('/api/v1/runs/r1/results');
    expect(reportUrl('abc_-1')).toBe('/api/v1/reports/abc_-1');
    expect(comparePath(['a', 'b', 'c'])).toBe('/compare?runs=a,b,c');
  });
});
