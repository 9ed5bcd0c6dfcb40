import { loadResult, type ResultFormat, resultFormats } from '@meshbench/schema';
import { describe, expect, it } from 'vitest';
import { decodeResultFile, decodeResults, INTERVAL_FORMATS } from './index.ts';
import { localFixture, publicFixture, rejected } from './test-fixtures.ts';

const thrown = rejected;

// One file of each format, and how many results it holds.
const SAMPLES: Array<[ResultFormat, string, number]> = [
  ['fortio', publicFixture('envoyproxy-nighthawk/hist_fortio-data_golden.json'), 1],
  ['nighthawk', publicFixture('envoyproxy-nighthawk/hist_test_test_data_large-sample.json'), 1],
  ['k6', localFixture('k6-handle-summary.json'), 1],
  ['k6-ndjson', localFixture('k6-out-json.ndjson'), 3],
  ['wrk2', localFixture('wrk2-readme-latency.txt'), 1],
  ['smp', publicFixture('service-mesh-performance/meshery_test_results.json'), 3],
  ['istio-csv', publicFixture('istio-tools/benchmark.csv'), 82],
  ['hey', localFixture('hey-0.1.4-debian.csv'), 1],
  ['wrk', localFixture('wrk-4.1.0-debian.txt'), 1],
  ['vegeta', publicFixture('vegeta/ocm-api-load-results.json'), 1],
  ['oha', localFixture('oha-json.json'), 1],
  ['gatling', publicFixture('gatling/single_node_with_known_stats-simulation.log'), 1],
  ['ghz', publicFixture('bojand-ghz/SayHello-report1.json'), 1],
  ['jmeter', publicFixture('apache-jmeter/HTMLReportTestFile.csv'), 1],
  ['locust', localFixture('locust-2.12.1_stats.csv'), 3],
];

describe('decodeResults', () => {
  it('covers every format but the HdrHistogram log (hdr-log.decoder.test.ts)', async () => {
    expect(SAMPLES.map(([f]) => f).sort()).toEqual(
      resultFormats.filter((f) => f !== 'hdr-log').sort(),
    );
  });

  it.each(SAMPLES.filter(([f]) => !INTERVAL_FORMATS.has(f)))(
    'decodes %s through decodeResultFile as decodeResults does',
    async (_f, text) => {
      const { intervals, ...rest } = await decodeResultFile(text, 'auto', {});
      expect(intervals).toBe(false);
      expect(rest).toEqual(await decodeResults(text, 'auto'));
    },
  );

  it.each(SAMPLES.filter(([f]) => INTERVAL_FORMATS.has(f)))(
    'decodes %s through decodeResultFile as interval results, a step per point decodeResults gives',
    async (format, text, count) => {
      const decoded = await decodeResultFile(text, 'auto', {});
      expect(decoded).toMatchObject({ intervals: true, format });
      expect(decoded.results).toHaveLength(count);
      const points = (await decodeResults(text, 'auto')).results;
      if (!decoded.intervals) return;
      for (const [i, r] of decoded.results.entries()) {
        expect(r.mode).toBe(points[i]?.mode);
        const requests = r.intervals.reduce((n, x) => n + x.count, 0);
        expect(requests).toBeLessThanOrEqual(points[i]?.requests ?? 0);
      }
    },
  );

  it.each(SAMPLES)('refuses a %s file posted as hdr-log', async (_f, text) => {
    expect((await thrown(() => decodeResultFile(text, 'hdr-log', {}))).problem).toBe(
      'format_mismatch',
    );
  });

  it.each(SAMPLES)('decodes %s with format=auto and with its name', async (format, text, count) => {
    const auto = await decodeResults(text, 'auto');
    expect(auto.format).toBe(format);
    expect(auto.results).toHaveLength(count);
    for (const r of auto.results) loadResult.parse(r);
    expect(await decodeResults(text, format)).toEqual(auto);
  });

  it('defaults to auto', async () => {
    expect((await decodeResults(localFixture('k6-summary-export.json'))).format).toBe('k6');
  });

  it.each(SAMPLES)('rejects a %s file posted as another format', async (format, text) => {
    const other = resultFormats.find((f) => f !== format)!;
    const err = await thrown(() => decodeResults(text, other));
    expect(err.problem).toBe('format_mismatch');
    expect(err.message).toContain(`format=${other}`);
  });

  it('says which format a mismatched file is', async () => {
    const fortio = publicFixture('envoyproxy-nighthawk/fortio_data_small.json');
    expect((await thrown(() => decodeResults(fortio, 'k6'))).message).toBe(
      'the file is Fortio JSON, not a k6 summary as format=k6 says',
    );
  });

  it('reads Nighthawk’s Fortio output as Fortio, and refuses it as Nighthawk', async () => {
    const text = publicFixture('envoyproxy-nighthawk/output_formatter.medium.fortio.gold');
    expect((await decodeResults(text)).format).toBe('fortio');
    expect((await thrown(() => decodeResults(text, 'nighthawk'))).problem).toBe('format_mismatch');
  });

  it('rejects a file of no known format', async () => {
    const err = await thrown(() => decodeResults('hello: world\n'));
    expect(err.problem).toBe('undetectable');
    expect(err.message).toContain('cannot tell the format');
    expect((await thrown(() => decodeResults('just text'))).problem).toBe('undetectable');
  });

  it('rejects an empty file', async () => {
    expect((await thrown(() => decodeResults('  \n'))).problem).toBe('empty');
  });

  it('reports truncated JSON as truncated, in auto and named modes', async () => {
    const real = publicFixture('envoyproxy-nighthawk/hist_fortio-data_golden.json');
    const cut = real.slice(0, Math.floor(real.length / 2));
    for (const format of ['auto', 'fortio'] as const) {
      const err = await thrown(() => decodeResults(cut, format));
      expect(err.problem).toBe('truncated');
      expect(err.line).toBe(cut.split('\n').length);
      expect(err.field).toMatch(/^DurationHistogram\.Data\[\d+\]/);
    }
  });

  it('reports invalid JSON with line and column', async () => {
    const err = await thrown(() => decodeResults('{\n  "ActualQPS": 1,\n  "x" 2\n}', 'fortio'));
    expect(err.problem).toBe('invalid_json');
    expect(err.line).toBe(3);
    expect(err.message).toMatch(/^invalid JSON at line 3, column \d+/);
  });

  it('rejects NaN and Infinity wherever they are', async () => {
    const golden = publicFixture('envoyproxy-nighthawk/hist_fortio-data_golden.json');
    const nan = golden.replace('"ActualQPS":399.44483242517316', '"ActualQPS":NaN');
    const e1 = await thrown(() => decodeResults(nan));
    expect(e1.problem).toBe('non_finite');
    expect(e1.field).toBe('ActualQPS');
    expect(e1.line).toBe(6);

    const csv = publicFixture('istio-tools/benchmark.csv').replace(',2241,', ',inf,');
    const e2 = await thrown(() => decodeResults(csv));
    expect(e2).toMatchObject({ problem: 'non_finite', field: 'p50', line: 2 });
  });

  it('rejects a file whose results carry nothing measured', async () => {
    const err = await thrown(() =>
      decodeResults(publicFixture('envoyproxy-nighthawk/percentile-column-overflow.json')),
    );
    expect(err.problem).toBe('no_results');
    const header = publicFixture('istio-tools/benchmark.csv').split('\n')[0]!;
    expect((await thrown(() => decodeResults(`${header}\n`))).problem).toBe('no_results');
    expect((await thrown(() => decodeResults('[]', 'smp'))).problem).toBe('format_mismatch');
  });

  it('rejects values the schema refuses, naming the field', async () => {
    const err = await thrown(() =>
      decodeResults(JSON.stringify({ DurationHistogram: { Count: 1 }, ActualQPS: -3 }), 'fortio'),
    );
    expect(err).toMatchObject({ problem: 'invalid_value', field: 'ActualQPS' });
  });
});
