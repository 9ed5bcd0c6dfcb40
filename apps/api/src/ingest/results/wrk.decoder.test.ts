import { describe, expect, it } from 'vitest';
import { sniff } from './detect.ts';
import { decodeResults } from './index.ts';
import { localFixture, rejected } from './test-fixtures.ts';
import { looksLikeWrk4 } from './wrk.decoder.ts';

// Written by Debian's wrk 4.1.0 with --latency (fixtures/README.md).
const real = localFixture('wrk-4.1.0-debian.txt');

describe('wrk 4 report', () => {
  it("is told apart from wrk2's and keeps wrk's percentiles as it printed them", async () => {
    expect(sniff(real)).toBe('wrk');
    expect(sniff(localFixture('wrk2-readme-basic.txt'))).toBe('wrk2');
    const decoded = await decodeResults(real);
    expect(decoded.format).toBe('wrk');
    const [point] = decoded.results;
    // The report's own lines: "     50%    4.09ms" ... and "902 requests in 1.10s".
    const printed = [...real.matchAll(/^\s+(\d+)%\s+([\d.]+)ms$/gm)].map((m) => [
      Number(m[1]),
      Number(m[2]),
    ]);
    expect(printed).toHaveLength(4);
    expect(point?.percentiles.map((q) => [q.p, q.ms])).toEqual(printed);
    for (const q of point?.percentiles ?? []) {
      expect(q).toMatchObject({ exact: false, method: 'reported' });
    }
    expect(point?.requests).toBe(Number(/(\d+) requests in/.exec(real)?.[1]));
    expect(point?.achievedRps).toBe(Number(/Requests\/sec:\s+([\d.]+)/.exec(real)?.[1]));
  });

  it('is refused when named as wrk2, and a wrk2 report when named as wrk', async () => {
    expect((await rejected(() => decodeResults(real, 'wrk2'))).message).toBe(
      'the file is a wrk 4 report, not a wrk2 report as format=wrk2 says',
    );
    const wrk2 = localFixture('wrk2-readme-latency.txt');
    expect((await rejected(() => decodeResults(wrk2, 'wrk'))).problem).toBe('format_mismatch');
  });

  // wrk2 prints its distribution as "%7.3Lf%%": " 50.000%" (one space of padding) and
  // "100.000%" (none); wrk 4 as "%7.0Lf%%": "     50%". Either wrk2 line alone tells wrk2.
  const report = (lines: string[]) =>
    [
      'Running 30s test @ http://127.0.0.1:80/index.html',
      '  2 threads and 100 connections',
      '  Latency Distribution',
      ...lines,
      'Requests/sec:    100.00',
    ].join('\n');

  it('tells wrk2 by its 3-decimal percentile lines alone, and wrk 4 by its own', () => {
    expect(looksLikeWrk4(report([' 50.000%    1.00ms', ' 99.900%    3.00ms']))).toBe(false);
    expect(looksLikeWrk4(report(['100.000%    5.00ms']))).toBe(false);
    expect(looksLikeWrk4(report(['     50%    1.00ms', '     99%    3.00ms']))).toBe(true);
    expect(looksLikeWrk4('Thread calibration: mean lat.: 1.2ms')).toBe(false);
  });
});
