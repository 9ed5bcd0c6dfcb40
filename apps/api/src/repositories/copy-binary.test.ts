import {
  COPY_BINARY_HEADER,
  COPY_BINARY_TRAILER,
  int64Field,
  putInt64,
  putTimestampField,
  uuidField,
} from '@meshbench/db';
import { describe, expect, it } from 'vitest';
import { readCopyBinary, timestampOf } from '../test/copy-binary-reader.ts';

describe('binary COPY fields', () => {
  it('writes 64-bit integers as Node writes them, negative ones too', () => {
    for (const v of [0, 1, -1, 255, 2 ** 32, -(2 ** 32) - 1, 2 ** 53 - 1, -(2 ** 53) + 1]) {
      const ours = Buffer.alloc(8);
      putInt64(ours, 0, v);
      const node = Buffer.alloc(8);
      node.writeBigInt64BE(BigInt(v));
      expect(ours.toString('hex'), String(v)).toBe(node.toString('hex'));
    }
  });

  it('counts timestamps from 2000-01-01 in microseconds', () => {
    const field = Buffer.alloc(12);
    const us = Date.parse('2000-01-01T00:00:01Z') * 1000 + 7;
    putTimestampField(field, 0, us);
    expect(field.readInt32BE(0)).toBe(8);
    expect(field.readBigInt64BE(4)).toBe(1_000_007n);
  });

  it('makes a stream Postgres reads: header, tuples, trailer', () => {
    const ts = Buffer.alloc(12);
    putTimestampField(ts, 0, Date.parse('2026-02-01T10:00:00.123Z') * 1000 + 456);
    const tuple = Buffer.concat([
      Buffer.from([0, 3]),
      uuidField('0b4e1a52-8f4c-4d2e-9a51-6f1f2c3d4e5f'),
      ts,
      int64Field(42),
    ]);
    const [row] = readCopyBinary(Buffer.concat([COPY_BINARY_HEADER, tuple, COPY_BINARY_TRAILER]));
    expect(row?.[0]?.toString('hex')).toBe('0b4e1a528f4c4d2e9a516f1f2c3d4e5f');
    expect(timestampOf(row?.[1] as Buffer)).toEqual({
      iso: '2026-02-01T10:00:00.123Z',
      micros: 456,
    });
    expect(row?.[2]?.readBigInt64BE(0)).toBe(42n);
    expect(() => uuidField('run-1')).toThrow(/uuid/);
  });
});
