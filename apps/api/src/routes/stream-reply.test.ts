import { describe, expect, it } from 'vitest';
import { acceptsGzip } from './stream-reply.ts';

describe('acceptsGzip', () => {
  it.each([
    ['gzip, deflate, br', true],
    ['br;q=1.0, GZIP;q=0.5', true],
    ['*', true],
    ['gzip;q=0, *', false],
    ['*;q=0', false],
    ['identity', false],
    ['deflate, br', false],
    [undefined, false],
    ['', false],
  ])('%s -> %s', (header, expected) => {
    expect(acceptsGzip(header)).toBe(expected);
  });
});
