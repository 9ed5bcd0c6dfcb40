import { describe, expect, it } from 'vitest';
import { detectFormat } from './detect.ts';
import { decodeGhz } from './ghz.decoder.ts';
import { decodeResults } from './index.ts';
import { publicFixture, rejected } from './test-fixtures.ts';

// A report ghz wrote, with details (fixtures/public/bojand-ghz/PROVENANCE.md).
const text = publicFixture('bojand-ghz/SayHello-report1.json');

interface Detail {
  timestamp: string;
  latency: number;
  status: string;
  error: string;
}

describe('ghz JSON report', () => {
  it('is told by its shape and stored as its details say, each percentile within 1 us', async () => {
    expect(await detectFormat(text)).toBe('ghz');
    const decoded = await decodeResults(text);
    expect(decoded.format).toBe('ghz');
    const report = JSON.parse(text) as { details: Detail[]; count: number };
    const us = report.details.map((d) => Math.floor(d.latency / 1000)).sort((a, b) => a - b);
    const [point] = decoded.results;
    expect(point).toMatchObject({
      requests: report.details.length,
      errors: report.details.filter((d) => d.status !== 'OK' || d.error !== '').length,
      connections: 50,
      labels: { tool: 'ghz', call: 'helloworld.Greeter.SayHello' },
    });
    // ghz counted 200 calls and detailed 193 of them: the point is of the details.
    expect([report.count, report.details.length]).toEqual([200, 193]);
    expect(point?.labels.ghzCount).toBe('200');
    const ends = report.details.map((d) => Date.parse(d.timestamp));
    const starts = report.details.map((d, i) => (ends[i] as number) - d.latency / 1e6);
    // Timestamps to the microsecond: the span within 1 ms of Date's milliseconds.
    expect(
      Math.abs((point?.durationMs as number) - (Math.max(...ends) - Math.min(...starts))),
    ).toBeLessThan(1);
    for (const q of point?.percentiles ?? []) {
      const v = (us[Math.ceil((q.p / 100) * us.length) - 1] as number) / 1000;
      expect(q.ms).toBeCloseTo(v, 9);
      expect(q).toMatchObject({ exact: false, method: 'raw' });
      expect(q.upper as number).toBeCloseTo(v + 0.001, 9);
    }
  });

  it("keeps ghz's own percentiles as reported when the report has no details", () => {
    const { details: _details, ...summary } = JSON.parse(text) as Record<string, unknown>;
    const [point] = decodeGhz(summary).results;
    expect(point?.percentiles.find((q) => q.p === 99)).toEqual({ p: 99, ms: 80.200129 });
    expect(point).toMatchObject({ requests: 200, achievedRps: 1011.2135748546173 });
  });

  /** A ghz report of the given details (ResultDetail: timestamp = end, latency in ns). */
  const withDetails = (details: unknown[], over: Record<string, unknown> = {}) => ({
    options: { call: 'helloworld.Greeter.SayHello', concurrency: 4 },
    count: details.length,
    latencyDistribution: [],
    statusCodeDistribution: {},
    details,
    ...over,
  });
  const call = (end: string, latencyNs: number, status: string, error = '') => ({
    timestamp: end,
    latency: latencyNs,
    status,
    error,
  });

  it('counts a call as an error by its status or its error text, an empty status as Unknown', () => {
    const [point] = decodeGhz(
      withDetails([
        call('2026-11-26T12:00:00.002Z', 2_000_000, 'OK'),
        call('2026-11-26T12:00:00.003Z', 1_000_000, 'Unavailable', 'connection refused'),
        call('2026-11-26T12:00:00.004Z', 1_000_000, 'OK', 'stream reset'),
        call('2026-11-26T12:00:00.005Z', 1_000_000, ''),
        call('2026-11-26T12:00:00.006Z', 1_000_000, 'Unavailable'),
      ]),
    ).results;
    expect(point).toMatchObject({
      requests: 5,
      errors: 4,
      errorsByCode: { Unavailable: 2, OK: 1, Unknown: 1 },
      connections: 4,
      // First start 12:00:00.000 (2 ms before its end) to the last end, 12:00:00.006.
      durationMs: 6,
      startedAt: '2026-11-26T12:00:00.000000Z',
    });
    expect(point?.labels).toEqual({ tool: 'ghz', call: 'helloworld.Greeter.SayHello' });
  });

  it('names the run and reads -c before --concurrency', () => {
    const doc = withDetails([call('2026-11-26T12:00:00.002Z', 1_000_000, 'OK')], {
      name: 'canary',
      options: { c: 8, concurrency: 4, call: 7 },
    });
    const [point] = decodeGhz(doc).results;
    expect(point?.labels).toEqual({ tool: 'ghz', name: 'canary' });
    expect(point?.connections).toBe(8);
    const unnamed = decodeGhz({ ...doc, name: '', options: {} }).results[0];
    expect(unnamed?.labels).toEqual({ tool: 'ghz' });
    expect(unnamed?.connections).toBeNull();
  });

  it.each([
    [[7], 'details.0: is not an object'],
    [
      [call('2026-11-26T12:00:00Z', 1.5, 'OK')],
      'details.0: latency must be whole nanoseconds >= 0',
    ],
    [[call('2026-11-26T12:00:00Z', -1, 'OK')], 'details.0: latency must be whole nanoseconds >= 0'],
    [[call('yesterday', 1, 'OK')], 'details.0: timestamp must be an RFC 3339 timestamp'],
  ])('refuses a bad call, naming it: %j', async (details, message) => {
    const e = await rejected(() => decodeGhz(withDetails(details)));
    expect(e).toMatchObject({ problem: 'invalid_value', message, field: 'details.0' });
  });

  it('is not ghz without options, a count, status codes or a latency distribution', async () => {
    const ok = withDetails([]);
    for (const doc of [
      [],
      { ...ok, options: null },
      { ...ok, count: '3' },
      { ...ok, statusCodeDistribution: [] },
      { ...ok, latencyDistribution: {} },
    ]) {
      const e = await rejected(() => decodeGhz(doc));
      expect(e.problem).toBe('format_mismatch');
      expect(e.message).toBe(
        'not a ghz JSON report: expected options, count, statusCodeDistribution and latencyDistribution',
      );
    }
  });

  it("keeps only ghz's own numbers that are times >= 0 when there are no details", () => {
    const [point] = decodeGhz(
      withDetails([], {
        total: 2e9,
        fastest: -1,
        average: '5',
        slowest: 9e6,
        rps: '100',
        latencyDistribution: [
          { percentage: 50, latency: 3e6 },
          { percentage: 99, latency: null },
          { percentage: '90', latency: 4e6 },
          7,
        ],
      }),
    ).results;
    expect(point).toMatchObject({
      requests: 0,
      durationMs: 2000,
      minMs: null,
      meanMs: null,
      maxMs: 9,
      achievedRps: null,
      percentiles: [{ p: 50, ms: 3 }],
    });
  });
});
