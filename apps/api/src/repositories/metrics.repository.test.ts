import { describe, expect, it } from 'vitest';
import type { StoredExemplar } from '../domain/metric-record.ts';
import { readCopyBinary, timestampOf } from '../test/copy-binary-reader.ts';
import { copyChunks, type PointToStore, pointRows } from './metrics.repository.ts';

const RUN = '0b4e1a52-8f4c-4d2e-9a51-6f1f2c3d4e5f';
const point = (values: Partial<PointToStore>): PointToStore => ({
  runId: RUN,
  seriesId: '42',
  tMs: Date.UTC(2026, 1, 1, 10),
  intervalMs: 1000,
  startAtMs: null,
  replica: 'r-1',
  count: 3,
  sum: null,
  min: null,
  max: null,
  last: null,
  lastAtMs: null,
  members: null,
  sketch: null,
  quantiles: null,
  ...values,
});

const rowsOf = (points: PointToStore[]) =>
  readCopyBinary(Buffer.concat([...copyChunks(pointRows(points))]));

describe('metric points as binary COPY rows', () => {
  it('writes every column: ids, times to the millisecond, floats, NULLs, arrays, bytes, json', () => {
    const [row] = rowsOf([
      point({
        tMs: Date.UTC(2026, 1, 1, 10, 0, 0, 7) + 0.75, // truncated, as Date does
        intervalMs: 999.6,
        startAtMs: Date.UTC(2026, 1, 1, 9),
        sum: -2.5,
        min: 0.1,
        max: Number.POSITIVE_INFINITY, // not finite: NULL
        last: 1e300,
        lastAtMs: Date.UTC(2026, 1, 1, 10, 0, 0, 500),
        members: ['a', 'é', ''],
        sketch: Uint8Array.from([1, 2, 255]),
        quantiles: [{ q: 0.5, value: 3 }],
        lastExact: '18446744073709551615',
      }),
    ]);
    const f = row as (Buffer | null)[];
    expect(f).toHaveLength(17);
    expect(f[0]?.toString('hex')).toBe(RUN.replaceAll('-', ''));
    expect(f[1]?.readBigInt64BE(0)).toBe(42n);
    expect(timestampOf(f[2] as Buffer)).toEqual({ iso: '2026-02-01T10:00:00.007Z', micros: 0 });
    expect(f[3]?.readInt32BE(0)).toBe(1000);
    expect(timestampOf(f[4] as Buffer).iso).toBe('2026-02-01T09:00:00.000Z');
    expect(f[5]?.toString()).toBe('r-1');
    expect([6, 7, 8, 10].map((i) => f[i]?.readDoubleBE(0))).toEqual([3, -2.5, 0.1, 1e300]);
    expect(f[9]).toBeNull();
    expect(timestampOf(f[11] as Buffer).iso).toBe('2026-02-01T10:00:00.500Z');
    // text[]: one dimension, no NULLs, element type text (25), 3 items from 1.
    const members = f[12] as Buffer;
    expect([0, 4, 8, 12, 16].map((o) => members.readInt32BE(o))).toEqual([1, 0, 25, 3, 1]);
    expect(members.subarray(20).toString('hex')).toBe(
      `00000001${Buffer.from('a').toString('hex')}00000002${Buffer.from('é').toString('hex')}00000000`,
    );
    expect(f[13]?.toString('hex')).toBe('0102ff');
    expect(f[14]?.[0]).toBe(1); // jsonb version
    expect(JSON.parse((f[14] as Buffer).subarray(1).toString())).toEqual([{ q: 0.5, value: 3 }]);
    expect(f[15]?.toString()).toBe('18446744073709551615');
    expect(f[16]).toBeNull(); // no exemplars
  });

  it('writes exemplars as jsonb, non-finite values as the strings remote write sends', () => {
    const exemplars: StoredExemplar[] = [
      { tMs: Date.UTC(2026, 1, 1, 10), value: 0.25, labels: { trace_id: 'ab12' } },
      { tMs: Date.UTC(2026, 1, 1, 10, 0, 1), value: '+Inf', labels: {} },
    ];
    const [row] = rowsOf([point({ exemplars })]) as (Buffer | null)[][];
    const f = row as (Buffer | null)[];
    expect(f[16]?.[0]).toBe(1); // jsonb version
    expect(JSON.parse((f[16] as Buffer).subarray(1).toString())).toEqual(exemplars);
  });

  it('writes times before 1970 and around the millennium to the millisecond', () => {
    for (const ms of [0, -1.5, -86_400_001, Date.UTC(2000, 0, 1) - 1, Date.UTC(2099, 11, 31)]) {
      const [row] = rowsOf([point({ tMs: ms })]);
      const t = row?.[2] as Buffer;
      expect(timestampOf(t).iso, String(ms)).toBe(new Date(ms).toISOString());
    }
  });

  it('writes an empty member list as the empty array, and many rows across chunks', () => {
    const [row] = rowsOf([point({ members: [] })]) as (Buffer | null)[][];
    const members = row?.[12] as Buffer;
    expect(members.readInt32BE(0)).toBe(0); // no dimensions
    const many = rowsOf(Array.from({ length: 20_000 }, (_, i) => point({ sum: i })));
    expect(many).toHaveLength(20_000);
    expect(many[19_999]?.[7]?.readDoubleBE(0)).toBe(19_999);
  });
});
