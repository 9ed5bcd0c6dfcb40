import type { Series } from '@meshbench/schema';
import { describe, expect, it } from 'vitest';
import { percentileLabel, prepareSeriesStats } from './series-stats.ts';

function series(s: Partial<Series> & Pick<Series, 'id' | 'name' | 'kind'>): Series {
  return {
    source: 'statsd',
    unit: null,
    tags: {},
    ...s,
    stats: { count: 0, sum: null, min: null, max: null, last: null, ...s.stats },
  };
}

const ddsketch = { exact: false, method: 'ddsketch', relativeError: 0.01 } as const;

describe('prepareSeriesStats', () => {
  const table = prepareSeriesStats([
    series({
      id: '1',
      name: 'xds.pushes',
      kind: 'counter',
      stats: { count: 40, sum: 40, min: 1, max: 1, last: null },
    }),
    series({
      id: '2',
      name: 'raft.commit_time',
      kind: 'histogram',
      source: 'otlp',
      unit: 'ms',
      tags: { server: 'consul-server-1', 'otel.scope.name': 'consul' },
      stats: {
        count: 1234,
        sum: 9000,
        min: 0.8,
        max: 212.4,
        last: null,
        percentiles: [
          { p: 50, value: 6.04, ...ddsketch },
          { p: 90, value: 18.96, ...ddsketch },
          { p: 99, value: 61.5, ...ddsketch },
        ],
      },
    }),
    series({
      id: '3',
      name: 'http.duration',
      kind: 'summary',
      source: 'otlp',
      unit: 's',
      stats: {
        count: 10,
        sum: 1,
        min: null,
        max: null,
        last: null,
        percentiles: [
          { p: 50, value: 0.05, exact: false, method: 'summary' },
          { p: 95, value: 0.2 },
        ],
      },
    }),
  ]);

  it('lists the series that have percentiles, by name, with every percentile as a column', () => {
    expect(table.rows.map((r) => r.name)).toEqual(['http.duration', 'raft.commit_time']);
    expect(table.percentiles).toEqual([50, 90, 95, 99]);
    expect(table.percentiles.map(percentileLabel)).toEqual(['P50', 'P90', 'P95', 'P99']);
  });
  it('writes values in the series unit and marks the estimates with their bound', () => {
    const raft = table.rows[1];
    expect(raft?.tags).toBe('server=consul-server-1');
    expect(raft?.count).toBe('1,234');
    expect([raft?.min, raft?.max]).toEqual(['0.800 ms', '212.4 ms']);
    expect(raft?.percentiles.map((m) => m?.text ?? null)).toEqual([
      '~6.04 ms',
      '~19.0 ms',
      null,
      '~61.5 ms',
    ]);
    expect(raft?.percentiles[0]?.description).toBe('estimated by ddsketch: within ±1 %');
  });
  it('claims nothing for a percentile whose accuracy is not given', () => {
    const http = table.rows[0];
    expect(http?.percentiles[0]?.text).toBe('~50.0 ms');
    expect(http?.percentiles[0]?.description).toBe(
      'an OTLP Summary quantile as the client sent it: no bound known',
    );
    expect(http?.percentiles[2]?.text).toBe('200.0 ms');
    expect(http?.percentiles[2]?.certainty).toBe('unknown');
    expect(http?.percentiles[2]?.description).toBeNull();
    expect(table.certainties.filter((c) => c === 'estimate')).toHaveLength(4);
    expect(table.certainties).toContain('unknown');
  });
  it('is empty without distributions', () => {
    expect(prepareSeriesStats([]).rows).toEqual([]);
  });
});

describe('prepareSeriesStats: what a run cannot know', () => {
  it("writes a min or max the run cannot know as the stream's bound, and marks counts from before the run", () => {
    const table = prepareSeriesStats([
      series({
        id: '9',
        name: 'proxy.latency',
        kind: 'histogram',
        source: 'otlp',
        unit: 'ms',
        stats: {
          count: 100,
          sum: 7164.297,
          min: null,
          max: null,
          streamMin: 0.01,
          streamMax: 5000,
          beforeRunMs: 4200,
          last: null,
          percentiles: [
            {
              p: 99,
              value: 1000,
              exact: false,
              method: 'explicit-histogram',
              lower: 1000,
              upper: 5000,
            },
          ],
        },
      }),
      series({
        id: '10',
        name: 'push.ms',
        kind: 'timer',
        stats: {
          count: 3,
          sum: 150,
          min: 40,
          max: 60,
          last: null,
          percentiles: [{ p: 99, value: 60, exact: true, method: 'raw' }],
        },
      }),
    ]);
    const [bounded, plain] = table.rows;
    expect(bounded).toMatchObject({
      min: '≥ 0.010 ms',
      max: '≤ 5.000 s',
      beforeRun: 'may include values recorded up to 4.200 s before the run started',
    });
    expect(bounded?.maxBound).toContain("the run's max is not known: at most 5.000 s");
    expect(plain).toMatchObject({ min: '40', max: '60', beforeRun: null, minBound: null });
    expect(table).toMatchObject({ bounded: true, beforeRun: true });
  });
});
