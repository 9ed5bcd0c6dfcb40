// The rules of nighthawk.decoder.ts one by one (issue 28): expected values from
// envoyproxy/nighthawk api/client/output.proto as its JSON formatter writes it (proto field
// names, Durations as "0.002s", uint64 as strings) and from its own outputs
// (fixtures/public/envoyproxy-nighthawk).
import { describe, expect, it } from 'vitest';
import { decodeNighthawk } from './nighthawk.decoder.ts';
import { thrown } from './test-fixtures.ts';

const LATENCY = 'benchmark_http_client.request_to_response';
const global = (over: Record<string, unknown> = {}) => ({
  name: 'global',
  statistics: [],
  counters: [],
  ...over,
});
const only = (doc: unknown) => {
  const out = decodeNighthawk(doc);
  expect(out.results).toHaveLength(1);
  return { r: out.results[0] as NonNullable<(typeof out.results)[0]>, unmapped: out.unmapped };
};

describe('which result is read', () => {
  it('refuses what has no results list of statistics or counters', () => {
    for (const doc of [
      null,
      [],
      { results: {} },
      { results: [{ name: 'global' }] },
      { results: [global(), 'x'] },
    ]) {
      expect(thrown(() => decodeNighthawk(doc))).toMatchObject({
        problem: 'format_mismatch',
        field: 'results',
      });
    }
    expect(only({ results: [{ counters: [] }] }).r.requests).toBeNull();
  });

  it('the global one; a lone result without that name; nothing from no results', () => {
    const { unmapped } = only({
      results: [{ name: 'worker_0', statistics: [] }, { statistics: [] }, global()],
    });
    expect(unmapped).toEqual(['results[worker_0]', 'results[1]']);
    expect(only({ results: [{ name: 'worker_0', statistics: [] }] }).unmapped).toEqual([]);
    expect(decodeNighthawk({ results: [] })).toEqual({ results: [], unmapped: [] });
    const err = thrown(() =>
      decodeNighthawk({ results: [{ statistics: [] }, { statistics: [] }] }),
    );
    expect(err).toMatchObject({ problem: 'invalid_value', field: 'results' });
    expect(err.message).toBe(
      'Nighthawk output has 2 per-worker results and no "global" one to import',
    );
  });
});

describe('options, version and times', () => {
  it('reads the options it maps, names the rest, and leaves out empty ones', () => {
    const { r, unmapped } = only({
      options: {
        connections: 8,
        requests_per_second: 250,
        uri: 'http://x/',
        concurrency: '2',
        duration: '30s',
        labels: ['run', 7, 'v2_clientonly'],
        timeout: '5s',
      },
      results: [global()],
    });
    expect(r).toMatchObject({ connections: 8, targetRps: 250, mode: 'clientonly' });
    expect(r.labels).toEqual({
      url: 'http://x/',
      concurrency: '2',
      requestedDuration: '30s',
      label: 'run 7 v2_clientonly',
    });
    expect(unmapped).toEqual(['options.timeout']);
    const empty = only({
      options: { uri: '', concurrency: '', duration: '', labels: [] },
      results: [global()],
    });
    expect(empty.r.labels).toEqual({});
    expect(empty.r.mode).toBe(only({ results: [global()] }).r.mode);
    const nonStrings = only({
      options: { uri: 1, concurrency: 2, duration: 3, labels: 'x' },
      results: [global()],
    });
    expect(nonStrings.r.labels).toEqual({});
    const unknownMode = only({ options: { labels: ['plain'] }, results: [global()] });
    expect(unknownMode.r.labels.label).toBe('plain');
    expect(unknownMode.r.mode).toBe(empty.r.mode);
  });

  it("names a bad option's field", () => {
    expect(
      thrown(() => decodeNighthawk({ options: { connections: -1 }, results: [global()] })).field,
    ).toBe('options.connections');
    expect(
      thrown(() => decodeNighthawk({ options: { requests_per_second: -1 }, results: [global()] }))
        .field,
    ).toBe('options.requests_per_second');
  });

  it('the version as major.minor.patch, missing parts 0; none without a major', () => {
    const v = (version: unknown) => only({ version, results: [global()] }).r.labels.runnerVersion;
    expect(v({ version: { major_number: 1, minor_number: 2, patch: 3 } })).toBe('1.2.3');
    expect(v({ version: { major_number: 1 } })).toBe('1.0.0');
    expect(v({ version: { minor_number: 2 } })).toBeUndefined();
    expect(v({ version: 'x' })).toBeUndefined();
    expect(v('0.3.0')).toBeUndefined();
  });

  it('names unknown top-level fields, and the rest of the global result', () => {
    const { unmapped } = decodeNighthawk({
      results: [global({ extra: 1, execution_duration: '1s' })],
      version: {},
      timestamp: '2020-01-01T00:00:00Z',
      other: true,
    });
    expect(unmapped).toEqual(['other', 'results[global].extra']);
  });

  it('the start is execution_start, else the timestamp; one in another shape is named', () => {
    const start = (doc: Record<string, unknown>) => only(doc);
    expect(
      start({
        timestamp: '2020-01-01T00:00:00Z',
        results: [global({ execution_start: '2021-01-01T00:00:00Z' })],
      }).r.startedAt,
    ).toBe('2021-01-01T00:00:00Z');
    expect(start({ timestamp: '2020-01-01T00:00:00Z', results: [global()] }).r.startedAt).toBe(
      '2020-01-01T00:00:00Z',
    );
    const badStart = start({ results: [global({ execution_start: 'yesterday' })] });
    expect(badStart.r.startedAt).toBeNull();
    expect(badStart.unmapped).toEqual(['results[global].execution_start']);
    expect(start({ timestamp: 'noon', results: [global()] }).unmapped).toEqual(['timestamp']);
    expect(start({ results: [global()] }).r.startedAt).toBeNull();
    expect(start({ results: [global({ execution_duration: '2.5s' })] }).r.durationMs).toBe(2500);
    expect(
      thrown(() => decodeNighthawk({ results: [global({ execution_duration: '-1s' })] })).field,
    ).toBe('results[0].execution_duration');
  });
});

describe('statistics', () => {
  it('the latency statistic: count, mean, pstdev, min, max and percentiles 0..1', () => {
    const { r } = only({
      results: [
        global({
          statistics: [
            'x',
            {
              id: LATENCY,
              count: '4',
              mean: '0.002s',
              pstdev: '0.0005s',
              min: '0.001s',
              max: '0.003s',
              percentiles: [
                { percentile: 0.5, duration: '0.002s' },
                7,
                { percentile: null, duration: '0.001s' },
                { percentile: 0.9 },
                { percentile: 1, duration: '0.003s' },
              ],
            },
          ],
        }),
      ],
    });
    expect(r).toMatchObject({ requests: 4, meanMs: 2, stdDevMs: 0.5, minMs: 1, maxMs: 3 });
    expect(r.percentiles).toEqual([
      { p: 50, ms: 2 },
      { p: 100, ms: 3 },
    ]);
  });

  it('other statistics with samples are named; empty ones and ones without an id are not read', () => {
    const { r, unmapped } = only({
      results: [
        global({
          statistics: [
            { id: 'sequencer.callback', count: '3' },
            { id: 'sequencer.blocking', count: '0' },
            { count: '5' },
            { id: 7, count: '2' },
          ],
        }),
      ],
    });
    expect(r.requests).toBeNull();
    expect(unmapped).toEqual(['statistics[sequencer.callback]', 'statistics[]']);
  });

  it('names the statistic and percentile of a bad value', () => {
    const bad = (stat: Record<string, unknown>) =>
      thrown(() =>
        decodeNighthawk({ results: [global({ statistics: [{}, { id: LATENCY, ...stat }] })] }),
      ).field;
    const at = 'results[0].statistics[1]';
    expect(bad({ count: '-1' })).toBe(`${at}.count`);
    expect(bad({ mean: '-1s' })).toBe(`${at}.mean`);
    expect(bad({ pstdev: '-1s' })).toBe(`${at}.pstdev`);
    expect(bad({ min: '-1s' })).toBe(`${at}.min`);
    expect(bad({ max: '-1s' })).toBe(`${at}.max`);
    expect(bad({ percentiles: [{}, { percentile: 'x', duration: '1s' }] })).toBe(
      `${at}.percentiles[1].percentile`,
    );
    expect(bad({ percentiles: [{ percentile: 0.5, duration: '-1s' }] })).toBe(
      `${at}.percentiles[0].duration`,
    );
    expect(
      thrown(() =>
        decodeNighthawk({ results: [global({ statistics: [{ id: 'other', count: 'x' }] })] }),
      ).field,
    ).toBe('results[0].statistics[0].count');
  });
});

describe('counters', () => {
  it('failures by kind, 1xx-3xx not failures, others named; zero failures not listed', () => {
    const { r, unmapped } = only({
      results: [
        global({
          counters: [
            { name: 'benchmark.http_2xx', value: '90' },
            { name: 'benchmark.http_1xx', value: '1' },
            { name: 'benchmark.http_3xx', value: '1' },
            { name: 'benchmark.http_4xx', value: '4' },
            { name: 'benchmark.http_5xx', value: '5' },
            { name: 'benchmark.http_xxx', value: '0' },
            { name: 'benchmark.pool_overflow', value: '2' },
            { name: 'benchmark.pool_connection_failure', value: '3' },
            { name: 'benchmark.stream_resets', value: '1' },
            { name: 'upstream_cx_total', value: '8' },
            { name: 7, value: '1' },
            'x',
          ],
        }),
      ],
    });
    expect(r.errors).toBe(15);
    expect(r.errorsByCode).toEqual({
      '4xx': 4,
      '5xx': 5,
      pool_overflow: 2,
      pool_connection_failure: 3,
      stream_resets: 1,
    });
    expect(unmapped).toEqual(['counters[upstream_cx_total]']);
  });

  it('with benchmark counters and no failure counter, none failed; without any, unknown', () => {
    const ok = only({
      results: [global({ counters: [{ name: 'benchmark.http_2xx', value: '9' }] })],
    });
    expect(ok.r.errors).toBe(0);
    const none = only({
      results: [global({ counters: [{ name: 'upstream_rq_total', value: '9' }] })],
    });
    expect(none.r.errors).toBeNull();
    expect(only({ results: [global({ counters: 'x' })] }).r.errors).toBeNull();
  });

  it("names a bad counter's value by its index", () => {
    expect(
      thrown(() =>
        decodeNighthawk({
          results: [
            global({
              counters: [
                { name: 'a', value: '1' },
                { name: 'b', value: 'x' },
              ],
            }),
          ],
        }),
      ).field,
    ).toBe('results[0].counters[1].value');
  });
});
