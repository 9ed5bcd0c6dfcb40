import { loadResult } from '@meshbench/schema';
import { describe, expect, it } from 'vitest';
import { decodeK6 as fromDocument } from './k6.decoder.ts';
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

describe('decodeK6', () => {
  it('reads the legacy --summary-export layout', () => {
    const { r, unmapped } = only(localFixture('k6-summary-export.json'));
    // metrics.http_req_duration
    expect(r.meanMs).toBe(2.2375374); // "avg"
    expect(r.minMs).toBe(0.657491); // "min"
    expect(r.maxMs).toBe(103.236451); // "max"
    expect(r.percentiles).toEqual([
      { p: 50, ms: 1.6005555 }, // "med"
      { p: 90, ms: 3.2591489 }, // "p(90)"
      { p: 95, ms: 4.3046355 }, // "p(95)"
    ]);
    expect(r.requests).toBe(2990); // http_reqs.count
    expect(r.achievedRps).toBe(99.6019527287); // http_reqs.rate
    expect(r.errors).toBe(0); // http_req_failed.passes
    expect(r.connections).toBe(100); // vus.max
    expect(r.durationMs).toBeNull(); // the legacy export states no duration
    expect(r.startedAt).toBeNull();
    expect(r.mode).toBe('unspecified');
    expect(unmapped).toContain('metrics.http_req_waiting');
    expect(unmapped).toContain('metrics.http_req_duration.thresholds');
    expect(unmapped).toContain('root_group'); // its checks
    expect(unmapped).not.toContain('metrics.http_reqs');
  });

  it("reads handleSummary's layout (values nested, failures, ramping VUs)", () => {
    const { r, unmapped } = only(localFixture('k6-handle-summary.json'));
    expect(r.percentiles).toEqual([
      { p: 50, ms: 9.2875455 },
      { p: 90, ms: 21.6127353 },
      { p: 95, ms: 30.13412915 },
      { p: 99, ms: 88.52181739000001 },
      { p: 99.9, ms: 301.2288114 }, // "p(99.9)"
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
});
