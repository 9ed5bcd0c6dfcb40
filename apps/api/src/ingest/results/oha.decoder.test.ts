import { describe, expect, it } from 'vitest';
import { detectFormat } from './detect.ts';
import { decodeResults } from './index.ts';
import { decodeOha } from './oha.decoder.ts';
import type { ResultFileError } from './result-file-error.ts';
import { localFixture, rejected } from './test-fixtures.ts';

// Laid out as hatoo/oha's print_json writes it (fixtures/README.md): no run of oha was at hand.
const text = localFixture('oha-json.json');

describe("oha's JSON summary", () => {
  it('is told by its shape and keeps its percentiles as reported', async () => {
    expect(await detectFormat(text)).toBe('oha');
    const decoded = await decodeResults(text);
    expect(decoded.format).toBe('oha');
    const [point] = decoded.results;
    // 400 + 10 responses, 5 client errors; the 50 deadline aborts are left out.
    expect(point).toMatchObject({
      requests: 415,
      errors: 5,
      errorsByCode: { 'connection closed before message completed': 5 },
      achievedRps: 414.74399,
      minMs: 0.812,
      maxMs: 41.2,
      labels: { tool: 'oha' },
    });
    // Seconds to ms in floating point: 2.0012345 s.
    expect(point?.durationMs).toBeCloseTo(2001.2345, 9);
    expect(point?.meanMs).toBeCloseTo(6.031, 9);
    expect(point?.percentiles.map((q) => q.p)).toEqual([10, 25, 50, 75, 90, 95, 99, 99.9, 99.99]);
    const p50 = point?.percentiles.find((q) => q.p === 50);
    expect(p50?.ms).toBeCloseTo(4.903, 9);
    expect(p50?.method).toBe('reported');
  });

  it('drops a NaN (null) percentile and refuses a bad count by field', () => {
    const doc = JSON.parse(text);
    doc.latencyPercentiles.p10 = null;
    expect(decodeOha(doc).results[0]?.percentiles[0]?.p).toBe(25);
    doc.statusCodeDistribution['200'] = -1;
    let e: ResultFileError | undefined;
    try {
      decodeOha(doc);
    } catch (x) {
      e = x as ResultFileError;
    }
    expect(e?.problem).toBe('invalid_value');
    expect(e?.message).toMatch(/^statusCodeDistribution\.200: must be a count >= 0/);
  });

  const fresh = () => JSON.parse(text) as Record<string, Record<string, unknown>>;

  it.each([
    ['a list', () => []],
    ['no summary', () => ({ ...fresh(), summary: undefined })],
    ['a summary without successRate', () => ({ ...fresh(), summary: { total: 1 } })],
    ['no latencyPercentiles', () => ({ ...fresh(), latencyPercentiles: undefined })],
    ['no statusCodeDistribution', () => ({ ...fresh(), statusCodeDistribution: undefined })],
    ['no errorDistribution', () => ({ ...fresh(), errorDistribution: undefined })],
  ])('is not oha with %s', async (_, doc) => {
    const e = await rejected(() => decodeOha(doc()));
    expect(e.problem).toBe('format_mismatch');
    expect(e.message).toBe(
      'not an oha JSON summary: expected summary, latencyPercentiles, statusCodeDistribution and errorDistribution',
    );
  });

  it.each([
    ['errorDistribution', 'timeout', 1.5, 'errorDistribution.timeout: must be a count >= 0'],
    ['summary', 'total', -1, 'summary.total: must be seconds >= 0'],
    ['summary', 'fastest', '0.1', 'summary.fastest: must be seconds >= 0'],
    ['latencyPercentiles', 'p50', -0.001, 'latencyPercentiles.p50: must be seconds >= 0'],
  ])('refuses %s.%s = %j, naming it', async (part, key, value, message) => {
    const doc = fresh();
    (doc[part] as Record<string, unknown>)[key] = value;
    const e = await rejected(() => decodeOha(doc));
    expect(e).toMatchObject({ problem: 'invalid_value', message, field: `${part}.${key}` });
  });

  it.each(['median', 'p50x', 'xp50', 'p', 'p50.'])(
    'refuses the percentile key %s, naming it',
    async (key) => {
      const doc = fresh();
      doc.latencyPercentiles = { p50: 0.004, [key]: 0.005 };
      const e = await rejected(() => decodeOha(doc));
      expect(e).toMatchObject({
        problem: 'invalid_value',
        message: `latencyPercentiles.${key}: not a pNN key`,
        field: `latencyPercentiles.${key}`,
      });
    },
  );

  it('sorts percentiles by p, counts errors but deadline aborts, and keeps absent values absent', () => {
    const doc = fresh();
    // Keys in an order that is not p's (p99.99 before p5: not the string order either).
    doc.latencyPercentiles = { 'p99.99': 0.03, p5: 0.001, p50: 0, 'p99.9': 0.02 };
    const long = 'x'.repeat(120);
    doc.errorDistribution = { 'aborted due to deadline': 7, [long]: 2, refused: 1 };
    doc.statusCodeDistribution = { '200': 10, '404': 0, '503': 4 };
    // A rate that is not a number (a string) is no rate.
    doc.summary = { successRate: 1, requestsPerSec: '414.7', total: 0 };
    const [r] = decodeOha(doc).results;
    expect(r?.percentiles.map((q) => [q.p, q.ms])).toEqual([
      [5, 1],
      [50, 0],
      [99.9, 20],
      [99.99, 30],
    ]);
    // 10 + 4 responses (any status) and 2 + 1 client errors; an error's name kept to 100 chars.
    expect(r).toMatchObject({
      requests: 17,
      errors: 3,
      errorsByCode: { ['x'.repeat(100)]: 2, refused: 1 },
      durationMs: 0,
      achievedRps: null,
      minMs: null,
      meanMs: null,
      maxMs: null,
      mode: 'unspecified',
    });
    expect(Object.keys(r?.errorsByCode ?? {})).toHaveLength(2);
  });

  it("names oha's fields that are not mapped", () => {
    expect(decodeOha(fresh()).unmapped).toEqual([
      'summary.totalData',
      'summary.sizePerRequest',
      'summary.sizePerSec',
      'responseTimeHistogram',
      'firstByteHistogram',
      'firstBytePercentiles',
      'rps',
      'details',
    ]);
  });
});
