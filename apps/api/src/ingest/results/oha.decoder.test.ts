import { describe, expect, it } from 'vitest';
import { detectFormat } from './detect.ts';
import { decodeResults } from './index.ts';
import { decodeOha } from './oha.decoder.ts';
import type { ResultFileError } from './result-file-error.ts';
import { localFixture } from './test-fixtures.ts';

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
});
