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
