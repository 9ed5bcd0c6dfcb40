import { loadResult } from '@meshbench/schema';
import { describe, expect, it } from 'vitest';
import { decodeResults } from './index.ts';
import { decodeK6 as fromDocument, isK6Summary } from './k6.decoder.ts';
import { ResultFileError } from './result-file-error.ts';
import { localFixture, publicFixture } from './test-fixtures.ts';
import { parseJson } from './values.ts';

/** The decoder on a JSON text, as decodeResults hands it the parsed file. */
const decodeK6 = (text: string) => fromDocument(parseJson(text));

function only(text: string) {
  const { results, unmapped } = decodeK6(text);
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

// k6 interpolates its percentiles between recorded values (metrics/sink.go TrendSink.P):
// numbers as k6 computed them, with no bound known.
const REPORTED = { exact: false, method: 'reported' } as const;

describe('decodeK6', () => {
  it('reads the legacy --summary-export layout', () => {
    const { r, unmapped } = only(localFixture('k6-summary-export.json'));
    // metrics.http_req_duration
    expect(r.meanMs).toBe(2.2375374); // "avg"
    expect(r.minMs).toBe(0.657491); // "min"
    expect(r.maxMs).toBe(103.236451); // "max"
    expect(r.percentiles).toEqual([
      { p: 50, ms: 1.6005555, ...REPORTED }, // "med"
      { p: 90, ms: 3.2591489, ...REPORTED }, // "p(90)"
      { p: 95, ms: 4.3046355, ...REPORTED }, // "p(95)"
    ]);
    expect(r.requests).toBe(2990); // http_reqs.count
    expect(r.achievedRps).toBe(99.6019527287); // http_reqs.rate
    expect(r.errors).toBe(0); // http_req_failed.passes
    expect(r.connections).toBe(100); // vus.max
    expect(r.durationMs).toBeNull(); // the legacy export states no duration
    expect(r.startedAt).toBeNull();
    expect(r.mode).toBe('unspecified');
    expect(unmapped).toContain('metrics.http_req_waiting');
    // --summary-export writes each threshold as `!ok` (k6 summary-wrapper.js oldJSONSummary):
    // false is a threshold that held.
    expect(r.thresholds).toEqual([
      { metric: 'http_req_duration', threshold: 'p(95)<500', ok: true },
      { metric: 'http_req_failed', threshold: 'rate<0.01', ok: true },
    ]);
    expect(unmapped).not.toContain('metrics.http_req_duration.thresholds');
    expect(unmapped).toContain('root_group'); // its checks
    expect(unmapped).not.toContain('metrics.http_reqs');
  });

  it("keeps k6's verdict on every threshold, from either legacy layout", () => {
    // The same three thresholds as grafana/k6 internal/js/summary_test.go's mocked summary
    // (TestRawHandleSummaryData: one run written as both): checks rate>70 held, my_trend<1000
    // and http_reqs rate<100 were crossed. handleSummary's data says {ok}; --summary-export
    // writes !ok.
    const verdicts = [
      { metric: 'checks', threshold: 'rate>70', ok: true },
      { metric: 'my_trend', threshold: 'my_trend<1000', ok: false },
      { metric: 'http_reqs', threshold: 'rate<100', ok: false },
    ];
    const handleSummary = {
      state: { testRunDurationMs: 1000 },
      metrics: {
        checks: {
          type: 'rate',
          contains: 'default',
          values: { passes: 45, fails: 15, rate: 0.75 },
          thresholds: { 'rate>70': { ok: true } },
        },
        my_trend: {
          type: 'trend',
          contains: 'time',
          values: { avg: 15, min: 10, med: 15, max: 20 },
          thresholds: { 'my_trend<1000': { ok: false } },
        },
        http_reqs: {
          type: 'counter',
          contains: 'default',
          values: { count: 3, rate: 3 },
          thresholds: { 'rate<100': { ok: false } },
        },
      },
    };
    const summaryExport = {
      metrics: {
        checks: { value: 0.75, passes: 45, fails: 15, thresholds: { 'rate>70': false } },
        my_trend: { avg: 15, min: 10, med: 15, max: 20, thresholds: { 'my_trend<1000': true } },
        http_reqs: { count: 3, rate: 3, thresholds: { 'rate<100': true } },
      },
    };
    for (const doc of [handleSummary, summaryExport]) {
      const { results, unmapped } = fromDocument(doc);
      expect(results[0]?.thresholds).toEqual(verdicts);
      expect(unmapped.some((u) => u.includes('thresholds'))).toBe(false);
    }
    expect(() =>
      fromDocument({ metrics: { http_reqs: { count: 3, thresholds: { 'rate<100': 'yes' } } } }),
    ).toThrow(/metrics\.http_reqs\.thresholds\["rate<100"\] must be/);
  });

  it("reads handleSummary's layout (values nested, failures, ramping VUs)", () => {
    const { r, unmapped } = only(localFixture('k6-handle-summary.json'));
    expect(r.percentiles).toEqual([
      { p: 50, ms: 9.2875455, ...REPORTED },
      { p: 90, ms: 21.6127353, ...REPORTED },
      { p: 95, ms: 30.13412915, ...REPORTED },
      { p: 99, ms: 88.52181739000001, ...REPORTED },
      { p: 99.9, ms: 301.2288114, ...REPORTED }, // "p(99.9)"
    ]);
    expect(r.meanMs).toBe(12.90410935);
    expect(r.requests).toBe(6000);
    expect(r.achievedRps).toBe(Number('99.97881168390426')); // the file's digits, as JSON.parse reads them
    expect(r.errors).toBe(43); // http_req_failed.values.passes: failed requests
    expect(r.errorsByCode).toEqual({}); // k6 gives no codes
    expect(r.connections).toBe(24); // vus.values.max, the peak of active VUs
    expect(r.durationMs).toBe(60012.713826); // state.testRunDurationMs
    expect(unmapped).toContain('metrics.http_req_duration{expected_response:true}');
    expect(unmapped).toContain('metrics.vus_max');
    expect(unmapped).not.toContain('options.summaryTrendStats');
    expect(unmapped).not.toContain('state.isStdOutTTY');
  });

  it('reads a summary with no percentiles and no failure metric', () => {
    const { r } = only(
      JSON.stringify({
        metrics: {
          http_req_duration: { avg: 3, min: 1, max: 9 },
          http_reqs: { count: 0, rate: 0 },
        },
      }),
    );
    expect(r.percentiles).toEqual([]);
    expect(r.requests).toBe(0);
    expect(r.errors).toBeNull();
  });

  it('rejects NaN, as k6 never writes it and JSON cannot hold it', () => {
    const text = '{"metrics": {"http_reqs": {"count": 10, "rate": NaN}}}';
    const err = thrown(() => decodeK6(text));
    expect(err.problem).toBe('non_finite');
    expect(err.field).toBe('metrics.http_reqs.rate');
  });

  it('rejects a string count that is not a number', () => {
    const text = JSON.stringify({ metrics: { http_reqs: { values: { count: 'many', rate: 1 } } } });
    const err = thrown(() => decodeK6(text));
    expect(err.problem).toBe('invalid_value');
    expect(err.field).toBe('metrics.http_reqs.values.count');
  });

  it('rejects what is not a k6 summary', () => {
    const err = thrown(() =>
      decodeK6(publicFixture('envoyproxy-nighthawk/fortio_data_small.json')),
    );
    expect(err.problem).toBe('format_mismatch');
  });

  describe('the v1 machine-readable summary (k6 1.5+ --new-machine-readable-summary, k6 2)', () => {
    const v1 = localFixture('k6-v1-machine-readable.json');

    it('reads results.metrics[], config and metadata', () => {
      const { r, unmapped } = only(v1);
      // results.metrics[http_req_duration].values: avg, min, max, med, p90, p95 (milliseconds)
      expect(r.meanMs).toBe(2.2375374);
      expect(r.minMs).toBe(0.657491);
      expect(r.maxMs).toBe(103.236451);
      expect(r.percentiles).toEqual([
        { p: 50, ms: 1.6005555, ...REPORTED },
        { p: 90, ms: 3.2591489, ...REPORTED },
        { p: 95, ms: 4.3046355, ...REPORTED },
      ]);
      expect(r.requests).toBe(2990); // http_reqs.values.count
      expect(r.errors).toBe(12); // http_req_failed.values.matches
      expect(r.connections).toBe(100); // vus.values.max
      expect(r.durationMs).toBe(30004.511269); // config.duration, 30.004511269 s
      // The v1 Counter has no rate: 2990 requests over 30.004511269 s.
      expect(r.achievedRps).toBeCloseTo(99.65168, 4);
      // config.script, the whole test script (URLs, a token), is not kept: only named.
      expect(r.labels).toEqual({
        runnerVersion: '1.8.1',
        execution: 'local',
        summaryVersion: '1.0.0',
        summaryGeneratedAt: '2026-11-02T10:15:42.734911+00:00',
      });
      expect(JSON.stringify(r)).not.toContain('mb_example_not_a_real_token');
      expect(r.thresholds).toBeNull(); // the v1 summary has none
      expect(r.startedAt).toBeNull();
      expect(unmapped).toEqual([
        'config.script',
        'results.checks',
        'results.metrics[iteration_duration]',
        'results.metrics[iterations]',
        'results.metrics[vus_max]',
        'results.metrics[data_received]',
        'results.metrics[data_sent]',
      ]);
    });

    it("reads the schema's JSON-tag spelling (k6Version, generatedAt, p(90)) alike", () => {
      const tagged = v1
        .replace('"generated_at"', '"generatedAt"')
        .replace('"k6_version"', '"k6Version"')
        .replaceAll('"p90"', '"p(90)"')
        .replaceAll('"p95"', '"p(95)"');
      expect(tagged).not.toBe(v1);
      expect(only(tagged)).toEqual(only(v1));
    });

    it('leaves out what k6 left null (an unset trend stat)', () => {
      const doc = JSON.parse(v1);
      doc.results.metrics[0].values.p95 = null;
      const { r } = only(JSON.stringify(doc));
      expect(r.percentiles.map((x) => x.p)).toEqual([50, 90]);
    });

    it('names the metric of a bad value by its index', () => {
      const doc = JSON.parse(v1);
      doc.results.metrics[2].values.count = 'lots';
      const err = thrown(() => decodeK6(JSON.stringify(doc)));
      expect(err).toMatchObject({
        problem: 'invalid_value',
        field: 'results.metrics[2].values.count',
      });
    });

    it('is told apart by content and read through decodeResults', async () => {
      const decoded = await decodeResults(v1);
      expect(decoded.format).toBe('k6');
      expect(decoded.results[0]?.requests).toBe(2990);
    });
  });

  // metrics/builtin.go: grpc_req_duration is a Trend of Time (ms), the latency of a test that
  // calls gRPC only; --summary-export writes a Trend's values inline (summary-wrapper.js).
  it('reads the latency of a gRPC-only test from grpc_req_duration', () => {
    const { r, unmapped } = only(
      JSON.stringify({
        metrics: {
          grpc_req_duration: { avg: 2, min: 1, med: 1.5, max: 5, 'p(90)': 4, 'p(95)': 4.5 },
          iterations: { count: 10, rate: 5 },
          vus: { value: 1, min: 1, max: 2 },
        },
      }),
    );
    expect([r.meanMs, r.minMs, r.maxMs, r.connections]).toEqual([2, 1, 5, 2]);
    expect(r.percentiles).toEqual([
      { p: 50, ms: 1.5, ...REPORTED },
      { p: 90, ms: 4, ...REPORTED },
      { p: 95, ms: 4.5, ...REPORTED },
    ]);
    expect(unmapped).toEqual(['metrics.iterations']);
  });

  it('gives no request rate for a v1 summary of zero duration (count / duration)', () => {
    const doc = JSON.parse(localFixture('k6-v1-machine-readable.json'));
    doc.config.duration = 0;
    const { r } = only(JSON.stringify(doc));
    expect([r.requests, r.durationMs, r.achievedRps]).toEqual([2990, 0, null]);
  });
});

// handleSummary's data as grafana/k6 internal/js/summary.go summarizeMetricsToObject builds it
// (87883075): root_group, options {summaryTrendStats, summaryTimeUnit, noColor}, state
// {isStdOutTTY, isStdErrTTY, testRunDurationMs}, metrics.<name> {type, contains, values} with
// the values of metricValueGetter (Counter count/rate, Gauge value/min/max, Rate
// rate/passes/fails, Trend one per summaryTrendStats column: avg min med max count p(N)),
// and setup_data.
function handleSummaryData() {
  return {
    root_group: {
      name: '',
      path: '',
      id: 'd41d8cd98f00b204e9800998ecf8427e',
      groups: [],
      checks: [],
    },
    options: {
      summaryTrendStats: ['avg', 'min', 'med', 'max', 'p(99.9)', 'count'],
      summaryTimeUnit: '',
      noColor: false,
    },
    state: { isStdOutTTY: false, isStdErrTTY: true, testRunDurationMs: 2000 },
    metrics: {
      http_req_duration: {
        type: 'trend',
        contains: 'time',
        values: { avg: 3, min: 1, med: 2, max: 9, 'p(99.9)': 8.5, count: 10 },
      },
      http_reqs: { type: 'counter', contains: 'default', values: { count: 10, rate: 5 } },
      http_req_failed: {
        type: 'rate',
        contains: 'default',
        values: { rate: 0.2, passes: 2, fails: 8 },
      },
      vus: { type: 'gauge', contains: 'default', values: { value: 1, min: 1, max: 4 } },
    } as Record<string, unknown>,
    setup_data: null as unknown,
  };
}

describe("decodeK6, handleSummary's data field by field (summary.go)", () => {
  it('reads every value metricValueGetter writes, and names the trend columns it does not map', () => {
    const { results, unmapped } = fromDocument(handleSummaryData());
    const r = results[0]!;
    expect([r.meanMs, r.minMs, r.maxMs]).toEqual([3, 1, 9]);
    expect(r.percentiles).toEqual([
      { p: 50, ms: 2, ...REPORTED },
      { p: 99.9, ms: 8.5, ...REPORTED },
    ]);
    expect([r.requests, r.achievedRps, r.errors, r.connections, r.durationMs]).toEqual([
      10, 5, 2, 4, 2000,
    ]);
    // The Trend's "count" column is no latency; the presentation settings and an empty
    // root_group are no facts about the test.
    expect(unmapped).toEqual(['metrics.http_req_duration.values.count']);
  });

  it('names what the data holds beyond the facts it maps', () => {
    const doc = handleSummaryData();
    doc.setup_data = { token: 'x' };
    (doc.state as Record<string, unknown>).extra = 1;
    (doc.options as Record<string, unknown>).other = 'y';
    doc.root_group.groups = [{ name: 'g' }] as never;
    doc.metrics.my_counter = {
      type: 'counter',
      contains: 'default',
      values: { count: 1, rate: 1 },
    };
    expect([...fromDocument(doc).unmapped].sort()).toEqual([
      'metrics.http_req_duration.values.count',
      'metrics.my_counter',
      'options.other',
      'root_group',
      'setup_data',
      'state.extra',
    ]);
    const checks = handleSummaryData();
    checks.root_group.checks = [{ name: 'ok', passes: 1, fails: 0 }] as never;
    expect(fromDocument(checks).unmapped).toContain('root_group');
  });

  it('takes the peak of vus_max when there is no vus, and the value of a gauge with no max', () => {
    const doc = handleSummaryData();
    delete doc.metrics.vus;
    doc.metrics.vus_max = { type: 'gauge', contains: 'default', values: { value: 7 } };
    expect(fromDocument(doc).results[0]?.connections).toBe(7);
  });

  it("computes a Counter's rate as count / test run duration when the file gives none", () => {
    const doc = handleSummaryData();
    doc.metrics.http_reqs = { type: 'counter', contains: 'default', values: { count: 10 } };
    // 10 requests over state.testRunDurationMs 2000 ms.
    expect(fromDocument(doc).results[0]?.achievedRps).toBe(5);
    doc.state.testRunDurationMs = 0;
    expect(fromDocument(doc).results[0]?.achievedRps).toBeNull();
  });

  it('skips a metric that is not an object, and reads an inline one without type or contains', () => {
    const doc = handleSummaryData();
    doc.metrics.junk = 5;
    doc.metrics.http_reqs = { type: 'counter', contains: 'default', count: 4, rate: 2 };
    const { results, unmapped } = fromDocument(doc);
    expect([results[0]?.requests, results[0]?.achievedRps]).toEqual([4, 2]);
    expect(unmapped.some((u) => u.includes('junk') || u.includes('type'))).toBe(false);
  });

  it('reads only p(N) and pN stats as percentiles; other stat names are unmapped', () => {
    const doc = handleSummaryData();
    doc.metrics.http_req_duration = {
      type: 'trend',
      contains: 'time',
      values: { 'p(99.99)': 7, p99: 6, 'xp(90)': 1, 'p(90)x': 1, p9x: 1, avg: null },
    };
    const { results, unmapped } = fromDocument(doc);
    expect(results[0]?.percentiles).toEqual([
      { p: 99, ms: 6, ...REPORTED },
      { p: 99.99, ms: 7, ...REPORTED },
    ]);
    expect(results[0]?.meanMs).toBeNull();
    expect(unmapped).toEqual([
      'metrics.http_req_duration.values.xp(90)',
      'metrics.http_req_duration.values.p(90)x',
      'metrics.http_req_duration.values.p9x',
    ]);
  });

  it('refuses a threshold verdict that is neither {ok: boolean} nor a boolean', () => {
    for (const verdict of [{ ok: 'yes' }, null, 1]) {
      const doc = handleSummaryData();
      doc.metrics.http_reqs = {
        type: 'counter',
        contains: 'default',
        values: { count: 10, rate: 5 },
        thresholds: { 'rate<100': verdict },
      };
      expect(thrown(() => fromDocument(doc))).toMatchObject({
        problem: 'invalid_value',
        field: 'metrics.http_reqs.thresholds',
      });
    }
  });
});

describe('what is told to be a k6 summary', () => {
  it.each(['http_req_duration', 'http_reqs', 'iterations', 'vus', 'vus_max', 'iteration_duration'])(
    'a legacy summary with only %s among its metrics',
    (name) => {
      expect(isK6Summary({ metrics: { [name]: { count: 1 } } })).toBe(true);
    },
  );

  it('a legacy summary of custom metrics only by its root_group', () => {
    expect(isK6Summary({ metrics: { mine: { count: 1 } }, root_group: {} })).toBe(true);
    expect(isK6Summary({ metrics: { mine: { count: 1 } } })).toBe(false);
    expect(isK6Summary({ metrics: [] })).toBe(false);
    expect(isK6Summary([])).toBe(false);
    expect(isK6Summary(null)).toBe(false);
  });

  it('a v1 summary with results.metrics[] of named metrics and config or metadata', () => {
    const metrics = [{ name: 'custom', type: 'counter', values: { count: 1 } }];
    expect(isK6Summary({ results: { metrics }, config: {} })).toBe(true);
    expect(isK6Summary({ results: { metrics }, metadata: {} })).toBe(true);
    expect(isK6Summary({ results: { metrics } })).toBe(false);
    expect(isK6Summary({ results: { metrics: [{ values: {} }] }, config: {} })).toBe(false);
    expect(isK6Summary({ results: { metrics: [5] }, config: {} })).toBe(false);
    expect(isK6Summary({ results: { metrics: {} }, config: {} })).toBe(false);
    expect(isK6Summary({ results: [], config: {} })).toBe(false);
  });
});

describe('decodeK6, the v1 summary field by field (machine_readable.go)', () => {
  const v1 = () => JSON.parse(localFixture('k6-v1-machine-readable.json'));

  it('refuses a metric whose values are not an object, naming its index', () => {
    const doc = v1();
    doc.results.metrics[1].values = [];
    expect(thrown(() => fromDocument(doc))).toMatchObject({
      problem: 'invalid_value',
      field: 'results.metrics[1].values',
    });
  });

  it('leaves out an empty execution, version and generation time, and a non-string version', () => {
    const doc = v1();
    doc.config = { duration: 30, execution: '' };
    doc.metadata = { k6_version: '', generated_at: 'not a time' };
    doc.version = 1;
    expect(fromDocument(doc).results[0]?.labels).toEqual({});
  });

  it('names the checks only when they hold something, and the rest of results and the file', () => {
    const doc = v1();
    doc.results.checks = { metrics: [], results: [], ordered: null };
    doc.results.groups = { g: 1 };
    doc.extra = true;
    const { unmapped } = fromDocument(doc);
    expect(unmapped).not.toContain('results.checks');
    expect(unmapped).toContain('results.groups');
    expect(unmapped).toContain('extra');
    doc.results.checks = { ordered: 'x' };
    expect(fromDocument(doc).unmapped).toContain('results.checks');
  });

  it('reads a v1 summary with metadata only (no config): no duration', () => {
    const doc = v1();
    delete doc.config;
    const r = fromDocument(doc).results[0]!;
    expect([r.durationMs, r.achievedRps, r.requests]).toEqual([null, null, 2990]);
  });
});
