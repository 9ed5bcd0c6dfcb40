// GatlingRequests: REQUEST records (from either simulation.log layout) counted into one point.
// Rules from gatling/gatling v3.12.0: a request's start and end are System.currentTimeMillis
// whole ms (LogFileDataWriter.scala ResponseMessageSerializer), so end - start is within 1 ms
// either side of the response time; a KO's message is sanitized (\n, \r, \t to spaces,
// DataWriterMessageSerializer.sanitize) and written as " " when there is none.
import { describe, expect, it } from 'vitest';
import { GatlingRequests } from './gatling-requests.ts';
import type { ResultFileError } from './result-file-error.ts';

const RUN = { simulation: 'Sim', version: '3.12.0' };

describe('GatlingRequests', () => {
  it('spans from the earliest start to the latest end, whatever the order of the records', () => {
    const q = new GatlingRequests();
    q.add('a', 5_000, 5_100, true, ' ');
    q.add('a', 1_000, 9_000, true, ' ');
    q.add('a', 3_000, 3_001, true, ' ');
    expect(q.count).toBe(3);
    const [point] = q.end(RUN, ['groups']).results;
    expect(point).toMatchObject({
      requests: 3,
      durationMs: 8_000,
      startedAt: '1970-01-01T00:00:01.000Z',
      minMs: 1,
      maxMs: 8_000,
      errors: 0,
      errorsByCode: {},
      labels: { tool: 'gatling', simulation: 'Sim', gatlingVersion: '3.12.0', request: 'a' },
    });
    // Response times 1, 100 and 8000 ms: P50 the 2nd (nearest rank ceil(1.5)), +-1 ms.
    expect(point?.percentiles.find((p) => p.p === 50)).toEqual({
      p: 50,
      ms: 100,
      exact: false,
      method: 'raw',
      lower: 99,
      upper: 101,
    });
    expect(q.end(RUN, ['groups']).unmapped).toEqual(['groups']);
  });

  it('keys KO requests by their message, sanitized and trimmed; none is "KO"', () => {
    const q = new GatlingRequests();
    q.add('a', 0, 1, false, 'status.find.is(200),\tbut\nactually\rfound 500 ');
    q.add('a', 0, 1, false, ' ');
    q.add('a', 0, 1, false, '');
    q.add('a', 0, 1, false, 'x'.repeat(150));
    q.add('a', 0, 1, true, 'ignored');
    const [point] = q.end(RUN, []).results;
    expect(point?.errors).toBe(4);
    expect(point?.errorsByCode).toEqual({
      'status.find.is(200), but actually found 500': 1,
      KO: 2,
      ['x'.repeat(100)]: 1,
    });
  });

  it('labels the request only when every record names the same one', () => {
    const q = new GatlingRequests();
    q.add('a', 0, 1, true, ' ');
    q.add('b', 0, 1, true, ' ');
    q.add('c', 0, 1, true, ' ');
    expect(q.end({ simulation: '', version: '' }, []).results[0]?.labels).toEqual({
      tool: 'gatling',
    });
  });

  it('refuses a log with no REQUEST record', () => {
    let err: ResultFileError | undefined;
    try {
      new GatlingRequests().end(RUN, []);
    } catch (e) {
      err = e as ResultFileError;
    }
    expect(err).toMatchObject({
      problem: 'no_results',
      message: 'the simulation.log has no REQUEST record',
    });
  });
});
