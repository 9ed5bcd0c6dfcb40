// WAL positions as pg_lsn prints them (X/Y, 32-bit halves in hex) and back, and the one a
// read says it must see (header or cookie).
import type { FastifyRequest } from 'fastify';
import { describe, expect, it } from 'vitest';
import { AppError } from '../errors.ts';
import { formatLsn, parseLsn } from '../repositories/database.ts';
import { requestedLsn } from './read-routing.plugin.ts';

const asked = (headers: Record<string, string>) =>
  requestedLsn({ headers } as unknown as FastifyRequest);

describe('WAL positions', () => {
  it('reads X/Y as (X << 32) + Y and prints it back as Postgres does', () => {
    expect(parseLsn('0/0')).toBe(0n);
    expect(parseLsn('0/16B3748')).toBe(0x16b3748n);
    expect(parseLsn('1/0')).toBe(4294967296n);
    expect(parseLsn('FFFFFFFF/FFFFFFFF')).toBe(2n ** 64n - 1n);
    expect(formatLsn(0x116b3748n)).toBe('0/116B3748');
    expect(formatLsn(4294967296n + 10n)).toBe('1/A');
    expect(parseLsn('a/b')).toBe(0xa00000000n + 0xbn);
  });

  it('orders positions across the 32-bit boundary', () => {
    expect((parseLsn('1/0') as bigint) > (parseLsn('0/FFFFFFFF') as bigint)).toBe(true);
  });

  it('refuses what is not a position', () => {
    for (const bad of ['', '0', '0/', '/1', '0/1/2', 'G/1', '123456789/0', ' 0/1', 'soon'])
      expect(parseLsn(bad), bad).toBeUndefined();
  });
});

describe('the position a read must see', () => {
  it('is the furthest of the header and the cookie', () => {
    expect(asked({})).toBeUndefined();
    expect(asked({ 'meshbench-lsn': '0/10' })).toBe(16n);
    expect(asked({ cookie: 'a=b; meshbench_lsn=0%2F20; c=d' })).toBe(32n);
    expect(asked({ 'meshbench-lsn': '0/30', cookie: 'meshbench_lsn=0/20' })).toBe(48n);
    expect(asked({ 'meshbench-lsn': '0/10', cookie: 'meshbench_lsn=1/0' })).toBe(2n ** 32n);
  });

  it('is a 400 naming the header when the header is no position; a bad cookie is ignored', () => {
    expect(() => asked({ 'meshbench-lsn': 'soon' })).toThrow(AppError);
    try {
      asked({ 'meshbench-lsn': 'soon' });
    } catch (error) {
      expect((error as AppError).statusCode).toBe(400);
      expect((error as AppError).message).toContain('meshbench-lsn');
    }
    expect(asked({ cookie: 'meshbench_lsn=later' })).toBeUndefined();
  });
});
