import { describe, expect, it } from 'vitest';
import type { MetricRecord } from '../../domain/metric-record.ts';
import { isTransientDbError, StatsdBacklog } from './statsd-backlog.ts';

const records = (n: number, from = 0) =>
  Array.from({ length: n }, (_, i) => ({ name: `m${from + i}` }) as MetricRecord);

describe('StatsdBacklog', () => {
  it('keeps points in order, in chunks, and counts what it holds', () => {
    const b = new StatsdBacklog(100, 4);
    expect(b.push(records(10), Array(10).fill(3))).toBe(10);
    expect(b.counters).toMatchObject({ points: 10, samples: 30, droppedPoints: 0 });
    const seen: string[] = [];
    while (b.head) {
      seen.push(...b.head.records.map((r) => r.name));
      b.shift();
    }
    expect(seen).toEqual(records(10).map((r) => r.name));
    expect(b.counters).toMatchObject({ points: 0, samples: 0 });
  });

  it('drops the newest past its bound, counting their samples', () => {
    const b = new StatsdBacklog(5, 2);
    expect(b.push(records(3), [1, 2, 3])).toBe(3);
    expect(b.push(records(4, 3), [10, 20, 30, 40])).toBe(2);
    expect(b.counters).toMatchObject({
      points: 5,
      samples: 1 + 2 + 3 + 10 + 20,
      droppedPoints: 2,
      droppedSamples: 30 + 40,
    });
    b.shift();
    expect(b.push(records(1, 7), [5])).toBe(1);
  });

  it('halves a refused chunk down to the one record at fault', () => {
    const b = new StatsdBacklog(100, 8);
    b.push(records(5), [1, 1, 1, 1, 9]);
    const bad = 'm4';
    let written = 0;
    while (b.head) {
      if (b.head.records.some((r) => r.name === bad)) b.isolate();
      else {
        written += b.head.records.length;
        b.shift();
      }
    }
    expect(written).toBe(4);
    expect(b.counters).toMatchObject({ points: 0, droppedPoints: 1, droppedSamples: 9 });
  });
});

describe('isTransientDbError', () => {
  it("tells the database's absence from a refusal of what was written", () => {
    const err = (props: Record<string, unknown>) => Object.assign(new Error('x'), props);
    expect(isTransientDbError(err({ code: 'ECONNREFUSED' }))).toBe(true);
    expect(isTransientDbError(err({ code: '57P01' }))).toBe(true);
    expect(isTransientDbError(err({ code: '08006' }))).toBe(true);
    expect(isTransientDbError(new Error('Connection terminated unexpectedly'))).toBe(true);
    expect(isTransientDbError(new AggregateError([err({ code: 'ECONNREFUSED' })]))).toBe(true);
    expect(isTransientDbError(err({ code: '22021' }))).toBe(false); // invalid byte sequence
    expect(isTransientDbError(err({ code: '23505' }))).toBe(false);
    expect(isTransientDbError(new TypeError('x is undefined'))).toBe(false);
  });
});

// Cases the mutation run (issue 28) asked for, worked by hand from the rules above.
describe('StatsdBacklog, chunk by chunk', () => {
  it('cuts a push into chunks of chunkPoints records, samples beside them', () => {
    const b = new StatsdBacklog(100, 4);
    b.push(records(10), [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(b.length).toBe(3);
    const chunks = [];
    while (b.head) {
      chunks.push({ ...b.head, records: b.head.records.map((r) => r.name) });
      b.shift();
    }
    expect(chunks).toEqual([
      { records: ['m0', 'm1', 'm2', 'm3'], samples: [1, 2, 3, 4], failures: 0 },
      { records: ['m4', 'm5', 'm6', 'm7'], samples: [5, 6, 7, 8], failures: 0 },
      { records: ['m8', 'm9'], samples: [9, 10], failures: 0 },
    ]);
    // Nothing to shift or isolate: no change.
    b.shift();
    expect(b.isolate()).toBe(false);
    expect(b.counters).toEqual({ points: 0, samples: 0, droppedPoints: 0, droppedSamples: 0 });
  });

  it('makes no empty chunk when the records fill their chunks exactly', () => {
    const b = new StatsdBacklog(100, 4);
    b.push(records(8), Array(8).fill(1));
    expect(b.length).toBe(2);
    // Nothing dropped: the counters hold no zero-sized drop either.
    expect(b.counters).toEqual({ points: 8, samples: 8, droppedPoints: 0, droppedSamples: 0 });
  });

  it('keeps nothing once full, and everything dropped is counted', () => {
    const b = new StatsdBacklog(2, 10);
    expect(b.push(records(2), [1, 1])).toBe(2);
    expect(b.push(records(3, 2), [4, 5, 6])).toBe(0);
    expect(b.counters).toEqual({ points: 2, samples: 2, droppedPoints: 3, droppedSamples: 15 });
    expect(b.length).toBe(1);
  });

  it('halves a head of five into three and two, each with no failures', () => {
    const b = new StatsdBacklog(100, 8);
    b.push(records(5), [1, 2, 3, 4, 5]);
    (b.head as { failures: number }).failures = 2;
    expect(b.isolate()).toBe(true);
    expect(b.length).toBe(2);
    expect(b.head).toEqual({
      records: records(3),
      samples: [1, 2, 3],
      failures: 0,
    });
    b.shift();
    expect(b.head).toEqual({ records: records(2, 3), samples: [4, 5], failures: 0 });
    expect(b.counters).toMatchObject({ points: 2, samples: 9 });
    b.isolate();
    expect(b.isolate()).toBe(false);
    expect(b.counters).toEqual({ points: 1, samples: 5, droppedPoints: 1, droppedSamples: 4 });
  });
});

describe('isTransientDbError, code by code', () => {
  const err = (props: Record<string, unknown>) => Object.assign(new Error('x'), props);

  it('takes every network and server-state code it lists, and SQLSTATE class 08', () => {
    for (const code of [
      'ECONNREFUSED',
      'ECONNRESET',
      'EPIPE',
      'ETIMEDOUT',
      'EHOSTUNREACH',
      'ENETUNREACH',
      'ENOTFOUND',
      'EAI_AGAIN',
      '57P01',
      '57P02',
      '57P03',
      '53300',
      '53100',
      '53200',
      '25006',
      '08000',
      '08P01',
    ]) {
      expect([code, isTransientDbError(err({ code }))]).toEqual([code, true]);
    }
    for (const code of ['', '57P04', '53400', '25P01', '80000', 'E08', 'EACCES']) {
      expect([code, isTransientDbError(err({ code }))]).toEqual([code, false]);
    }
    // A code that is not text is no code.
    expect(isTransientDbError(err({ code: 8006 }))).toBe(false);
  });

  it('takes the messages of a connection that went away, whatever their case', () => {
    for (const message of [
      'Connection terminated unexpectedly',
      'terminating connection due to administrator command',
      'Connection timeout',
      'timeout exceeded when trying to connect',
      'Connection Error',
      'the database system is starting up',
      'The database system is shutting down',
      'the database system is in recovery mode',
      'server closed the connection unexpectedly',
    ]) {
      expect([message, isTransientDbError(new Error(message))]).toEqual([message, true]);
    }
    for (const message of [
      'the database system is ready',
      'connection refused by policy',
      'duplicate key value violates unique constraint',
    ]) {
      expect([message, isTransientDbError(new Error(message))]).toEqual([message, false]);
    }
    // A message that is not text is no message.
    const text = { toString: () => 'connection error' };
    expect(isTransientDbError({ message: text })).toBe(false);
  });

  it('follows causes four deep, not five, and any error of an AggregateError', () => {
    const chain = (depth: number) => {
      let e: Error = err({ code: 'ECONNRESET' });
      for (let i = 0; i < depth; i++) e = new Error('wrapped', { cause: e });
      return e;
    };
    expect(isTransientDbError(chain(4))).toBe(true);
    expect(isTransientDbError(chain(5))).toBe(false);
    expect(
      isTransientDbError(new AggregateError([err({ code: '23505' }), err({ code: 'ETIMEDOUT' })])),
    ).toBe(true);
    expect(isTransientDbError(new AggregateError([err({ code: '23505' })]))).toBe(false);
    expect(isTransientDbError(err({ errors: 'ECONNRESET' }))).toBe(false);
    expect(isTransientDbError(undefined)).toBe(false);
  });
});
