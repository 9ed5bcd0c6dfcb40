import { describe, expect, it } from 'vitest';
import { detectFormat } from './detect.ts';
import { decodeGhz } from './ghz.decoder.ts';
import { decodeResults } from './index.ts';
import { publicFixture } from './test-fixtures.ts';

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
});
