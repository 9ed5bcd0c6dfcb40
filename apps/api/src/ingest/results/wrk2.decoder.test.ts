import { loadResult } from '@meshbench/schema';
import { describe, expect, it } from 'vitest';
import { ResultFileError } from './result-file-error.ts';
import { localFixture } from './test-fixtures.ts';
import { decodeWrk2 } from './wrk2.decoder.ts';

function only(text: string) {
  const { results, unmapped } = decodeWrk2(text);
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

describe('decodeWrk2', () => {
  it("reads the README's --latency report", () => {
    const { r, unmapped } = only(localFixture('wrk2-readme-latency.txt'));
    expect(r.requests).toBe(60018); // "60018 requests in 30.00s"
    expect(r.durationMs).toBe(30000);
    expect(r.achievedRps).toBe(2000.28); // "Requests/sec:   2000.28"
    expect(r.connections).toBe(100); // "2 threads and 100 connections"
    expect(r.labels).toEqual({
      requestedDuration: '30s',
      url: 'http://127.0.0.1:80/index.html',
      threads: '2',
    });
    // "#[Mean = 6.602, StdDeviation = 1.919]", "#[Max = 12.496, ...]": ms, preferred to the table's 6.60ms
    expect(r.meanMs).toBe(6.602);
    expect(r.stdDevMs).toBe(1.919);
    expect(r.maxMs).toBe(12.496);
    expect(r.errors).toBe(0); // no error lines
    // 79 spectrum rows, plus 99, 99.9, 99.99, 99.999 from the distribution only
    expect(r.percentiles).toHaveLength(83);
    expect(r.percentiles[0]).toEqual({ p: 0, ms: 0.921 }); // "0.921 0.000000 1 1.00"
    expect(r.percentiles).toContainEqual({ p: 50, ms: 6.671 }); // spectrum, not "50.000% 6.67ms"
    expect(r.percentiles).toContainEqual({ p: 99.0625, ms: 11.207 }); // "11.207 0.990625"
    expect(r.percentiles).toContainEqual({ p: 99, ms: 11.18 }); // "99.000% 11.18ms"
    expect(r.percentiles).toContainEqual({ p: 99.999, ms: 12.5 }); // "99.999% 12.50ms"
    expect(r.percentiles.at(-1)).toEqual({ p: 100, ms: 12.503 }); // "12.503 1.000000 ... inf"
    expect(unmapped).toEqual([
      'Thread calibration',
      'Thread Stats Req/Sec',
      'bytes read',
      'Transfer/sec',
    ]);
  });

  it("reads the README's plain report from the thread table", () => {
    const { r } = only(localFixture('wrk2-readme-basic.txt'));
    expect(r.requests).toBe(60017);
    expect(r.durationMs).toBe(30010); // "30.01s"
    expect(r.achievedRps).toBe(2000.15);
    expect(r.meanMs).toBe(6.46); // "Latency 6.46ms 1.93ms 12.34ms"
    expect(r.stdDevMs).toBe(1.93);
    expect(r.maxMs).toBe(12.34);
    expect(r.percentiles).toEqual([]);
  });

  it('reads socket and status errors and every time unit', () => {
    const { r } = only(localFixture('wrk2-errors.txt'));
    expect(r.errorsByCode).toEqual({ socket_read: 12, socket_timeout: 340, 'non-2xx-3xx': 1520 });
    expect(r.errors).toBe(12 + 340 + 1520);
    expect(r.durationMs).toBe(60000); // "1.00m"
    expect(r.meanMs).toBe(0.81233); // "812.33us"
    expect(r.stdDevMs).toBe(1210); // "1.21s"
    expect(r.percentiles).toEqual([
      { p: 50, ms: 0.612 }, // "612.00us"
      { p: 75, ms: 0.901 },
      { p: 90, ms: 1.52 },
      { p: 99, ms: 3200 }, // "3.20s"
      { p: 99.9, ms: 4870 },
      { p: 99.99, ms: 5010 },
      { p: 99.999, ms: 5010 },
      { p: 100, ms: 5010 },
    ]);
    expect(r.connections).toBe(400);
  });

  it('ignores the uncorrected histogram that -U adds', () => {
    const text = localFixture('wrk2-readme-latency.txt').replace(
      '----------------------------------------------------------',
      [
        '  Uncorrected Latency (measured without taking delayed starts into account)',
        '  Latency Distribution (HdrHistogram - Uncorrected Latency (measured without taking delayed starts into account))',
        ' 50.000%    1.00ms',
        '  Detailed Percentile spectrum:',
        '       0.500     0.000000            1         1.00',
        '#[Mean    =        1.000, StdDeviation   =        0.100]',
        '----------------------------------------------------------',
      ].join('\n'),
    );
    const { r, unmapped } = only(text);
    expect(r.meanMs).toBe(6.602);
    expect(r.percentiles[0]).toEqual({ p: 0, ms: 0.921 });
    expect(r.percentiles).toContainEqual({ p: 50, ms: 6.671 });
    expect(unmapped).toContain('Uncorrected Latency');
  });

  it('rejects -nan with its line', () => {
    const text = localFixture('wrk2-readme-basic.txt').replace('2000.15', '-nan');
    const err = thrown(() => decodeWrk2(text));
    expect(err.problem).toBe('non_finite');
    expect(err.line).toBe(9);
    expect(err.field).toBe('Requests/sec');
  });

  it('lists lines it does not know (a Lua script printing)', () => {
    const text = `${localFixture('wrk2-readme-basic.txt')}custom: 42\n`;
    expect(only(text).unmapped).toContain('line 11: custom: 42');
  });

  it('rejects what is not a wrk report', () => {
    expect(thrown(() => decodeWrk2('{"DurationHistogram": {}}')).problem).toBe('format_mismatch');
  });
});
