import { loadResult } from '@meshbench/schema';
import { describe, expect, it } from 'vitest';
import { decodeResults } from './index.ts';
import { decodeNighthawk as fromDocument } from './nighthawk.decoder.ts';
import { ResultFileError } from './result-file-error.ts';
import { documentOf, publicFixture, rejected } from './test-fixtures.ts';
import { parseJson } from './values.ts';

/** The decoder on a JSON text, as decodeResults hands it the parsed file. */
const decodeNighthawk = (text: string) => fromDocument(parseJson(text));

const file = (f: string) => publicFixture(`envoyproxy-nighthawk/${f}`);

function only(text: string) {
  const { results, unmapped } = decodeNighthawk(text);
  expect(results).toHaveLength(1);
  const r = results[0]!;
  expect(loadResult.parse(r)).toEqual(r);
  return { r, unmapped };
}

function thrown(fn: () => unknown): ResultFileError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(ResultFileError);
    return err as ResultFileError;
  }
  throw new Error('expected a ResultFileError');
}

describe('decodeNighthawk on real outputs', () => {
  it('reads the global result of a 12-worker run (hist_test_test_data_small_sample.json)', () => {
    const { r, unmapped } = only(file('hist_test_test_data_small_sample.json'));
    // global statistics[benchmark_http_client.request_to_response]: "count": "48"
    expect(r.requests).toBe(48);
    expect(r.meanMs).toBe(62.589845); // "mean": "0.062589845s"
    expect(r.stdDevMs).toBe(5.785869); // "pstdev": "0.005785869s"
    expect(r.minMs).toBeNull(); // this version writes no min/max
    expect(r.percentiles).toHaveLength(31);
    expect(r.percentiles[0]).toEqual({ p: 0, ms: 55.568383 }); // 0, "0.055568383s"
    expect(r.percentiles).toContainEqual({ p: 50, ms: 60.903423 }); // 0.5, "0.060903423s"
    expect(r.percentiles).toContainEqual({ p: 94.375, ms: 73.601023 }); // 0.94375
    expect(r.percentiles[30]).toEqual({ p: 100, ms: 84.357119 }); // 1, "0.084357119s"
    expect(r.connections).toBe(1); // options.connections
    expect(r.targetRps).toBe(1); // options.requests_per_second
    expect(r.errors).toBe(0); // only benchmark.http_2xx: "60"
    expect(r.errorsByCode).toEqual({});
    expect(r.durationMs).toBeNull(); // no execution_duration in this version
    expect(r.achievedRps).toBeNull(); // Nighthawk states no achieved rate
    expect(r.startedAt).toBe('2019-10-16T00:30:12.911078318Z'); // "timestamp"
    expect(r.labels).toEqual({
      url: 'http://127.0.0.1:10000/',
      concurrency: 'auto',
      requestedDuration: '5s',
    });
    for (let w = 0; w < 12; w++) expect(unmapped).toContain(`results[worker_${w}]`);
    expect(unmapped).toContain('statistics[benchmark_http_client.queue_to_connect]');
    expect(unmapped).toContain('statistics[sequencer.callback]');
    expect(unmapped).not.toContain('statistics[sequencer.blocking]'); // "count": "0"
    expect(unmapped).toContain('counters[upstream_rq_total]');
    expect(unmapped).toContain('options.timeout');
  });

  it('counts pool overflows as failures (hist_test_test_data_large-sample.json)', () => {
    const { r } = only(file('hist_test_test_data_large-sample.json'));
    expect(r.requests).toBe(1317); // request_to_response "count": "1317"
    expect(r.minMs).toBe(85.323775); // "min": "0.085323775s"
    expect(r.maxMs).toBe(112.316415); // "max": "0.112316415s"
    expect(r.meanMs).toBe(93.536335);
    expect(r.stdDevMs).toBe(4.224355);
    expect(r.percentiles).toHaveLength(55);
    expect(r.percentiles).toContainEqual({ p: 90, ms: 98.242559 }); // 0.9, "0.098242559s"
    expect(r.percentiles).toContainEqual({ p: 99.931640625, ms: 112.316415 }); // 0.99931640625
    expect(r.durationMs).toBe(5000.010451); // "execution_duration": "5.000010451s"
    expect(r.errors).toBe(8631); // benchmark.pool_overflow "8631"; http_3xx "1317" is not a failure
    expect(r.errorsByCode).toEqual({ pool_overflow: 8631 });
    expect(r.connections).toBe(100);
    expect(r.targetRps).toBe(2000);
    expect(r.labels.url).toBe('www.we-amp.com');
    expect(r.labels.runnerVersion).toBe('0.3.0');
    expect(r.startedAt).toBe('2020-06-10T09:47:06.915922617Z');
  });

  it('reads big_sample.json: 17988 timed requests of 18000 sent', () => {
    const { r } = only(file('hist_test_test_data_big_sample.json'));
    expect(r.requests).toBe(17988); // global request_to_response "count"
    expect(r.meanMs).toBe(0.229306); // "0.000229306s"
    expect(r.targetRps).toBe(50);
    expect(r.errors).toBe(0);
  });

  it("reads the formatter's golden output: only what maps, the rest listed", () => {
    const { r, unmapped } = only(file('output_formatter.json.gold'));
    expect(r.durationMs).toBe(1000); // global "execution_duration": "1s"
    expect(r.connections).toBe(0); // options.connections
    expect(r.startedAt).toBe('2009-02-13T23:31:31.567Z'); // "execution_start"
    expect(r.requests).toBeNull(); // no benchmark_http_client.request_to_response
    expect(r.errors).toBeNull(); // no benchmark.* counters
    expect(r.percentiles).toEqual([]);
    expect(r.labels).toEqual({ requestedDuration: '1s', runnerVersion: '0.3.0' });
    expect(unmapped).toEqual([
      'results[worker_0]',
      'results[worker_1]',
      'statistics[stat_id]',
      'statistics[foo_size]',
      'statistics[foo_latency]',
      'counters[bar]',
      'counters[foo]',
    ]);
  });

  it('reads the YAML output to the same result as the JSON one', async () => {
    // The golden YAML keeps the build's version placeholders; a real run has numbers there.
    const yaml = file('output_formatter.yaml.gold')
      .replace('@version_major@', '0')
      .replace('@version_minor@', '3')
      .replace('@version_patch@', '0');
    const fromYaml = fromDocument(await documentOf(yaml));
    expect(fromYaml).toEqual(decodeNighthawk(file('output_formatter.json.gold')));
    expect(fromYaml.results).toHaveLength(1);
  });

  it('finds nothing to import in percentile-column-overflow.json', async () => {
    const { r, unmapped } = only(file('percentile-column-overflow.json'));
    expect(r.requests).toBeNull();
    expect(unmapped).toEqual(['statistics[foo]']);
    const err = await rejected(() =>
      decodeResults(file('percentile-column-overflow.json'), 'nighthawk'),
    );
    expect(err.problem).toBe('no_results');
    expect(err.message).toContain('statistics[foo]');
  });
});

const crafted = (stat: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
  JSON.stringify({
    options: { connections: 4, requests_per_second: 100, labels: ['v2-nullvm_both'] },
    results: [
      {
        name: 'global',
        statistics: [{ id: 'benchmark_http_client.request_to_response', count: '10', ...stat }],
        counters: [
          { name: 'benchmark.http_2xx', value: '7' },
          { name: 'benchmark.http_5xx', value: '3' },
        ],
        execution_duration: '0.1s',
      },
    ],
    ...extra,
  });

describe('decodeNighthawk on crafted edge cases', () => {
  it('turns percentiles 0..1 into 0..100 exactly', () => {
    const { r } = only(
      crafted({
        percentiles: [
          { percentile: 0.999, count: '10', duration: '0.003s' },
          { percentile: 0.5, count: '5', duration: '0.001s' },
        ],
      }),
    );
    expect(r.percentiles).toEqual([
      { p: 50, ms: 1 },
      { p: 99.9, ms: 3 },
    ]);
    expect(r.errors).toBe(3);
    expect(r.errorsByCode).toEqual({ '5xx': 3 });
    expect(r.mode).toBe('both'); // from options.labels
  });

  it('reads missing percentiles as none', () => {
    expect(only(crafted({})).r.percentiles).toEqual([]);
  });

  it('rejects NaN durations with the field', () => {
    const err = thrown(() => decodeNighthawk(crafted({ mean: 'NaNs' })));
    expect(err.problem).toBe('non_finite');
    expect(err.field).toBe('results[0].statistics[0].mean');
  });

  it('rejects per-worker results without a global one', () => {
    const text = JSON.stringify({
      results: [
        { name: 'worker_0', statistics: [] },
        { name: 'worker_1', statistics: [] },
      ],
    });
    expect(thrown(() => decodeNighthawk(text)).message).toContain('no "global"');
  });

  it('rejects what is not Nighthawk output', () => {
    const err = thrown(() => decodeNighthawk(file('fortio_data_small.json')));
    expect(err.problem).toBe('format_mismatch');
  });
});
