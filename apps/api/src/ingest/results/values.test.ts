import { describe, expect, it } from 'vitest';
import { ResultFileError } from './result-file-error.ts';
import { goDurationSeconds, modeFromLabel, shift, spanMs, toCount, toNumber } from './values.ts';

describe('shift', () => {
  it('moves the decimal point without float noise', () => {
    expect(shift(1.005, 3)).toBe(1005);
    expect(1.005 * 1000).toBe(1004.9999999999999); // what it avoids
    expect(shift(0.29, 2)).toBe(29);
    expect(0.29 * 100).toBe(28.999999999999996);
    expect(shift(0.065077247, 3)).toBe(65.077247);
    expect(shift(0.99931640625, 2)).toBe(99.931640625);
    expect(shift(5.8719e-5, 3)).toBe(0.058719);
    expect(shift(1e-7, 3)).toBe(0.0001);
    expect(shift(30041695438, -6)).toBe(30041.695438);
    expect(shift(277.0500325408092, -3)).toBe(0.2770500325408092);
    expect(shift(0, 3)).toBe(0);
    expect(shift(-1.5, 3)).toBe(-1500);
  });
});

describe('toNumber and toCount', () => {
  const where = { field: 'x' };
  it('reads numbers and numeric strings', () => {
    expect(toNumber('48', where)).toBe(48);
    expect(toNumber(' 1.5e3 ', where)).toBe(1500);
    expect(toNumber(null, where)).toBeNull();
    expect(toNumber('', where)).toBeNull();
  });
  it('refuses NaN and Infinity in every spelling', () => {
    for (const bad of [Number.NaN, Number.POSITIVE_INFINITY, 'NaN', '-nan', 'inf', '+Infinity']) {
      expect(() => toNumber(bad, where)).toThrow(ResultFileError);
      try {
        toNumber(bad, where);
      } catch (err) {
        expect((err as ResultFileError).problem).toBe('non_finite');
      }
    }
  });
  it('refuses what is not a number', () => {
    expect(() => toNumber('12ms', where)).toThrow('x must be a number, got "12ms"');
    expect(() => toNumber(true, where)).toThrow(ResultFileError);
    expect(() => toCount('-1', where)).toThrow('whole number');
    expect(() => toCount(1.5, where)).toThrow('whole number');
  });
});

describe('modeFromLabel', () => {
  it('reads the Istio runner suffixes', () => {
    expect(modeFromLabel('ecbc1c65_qps_1000_c_8_1024_v2-stats-nullvm_both')).toBe('both');
    expect(modeFromLabel('ff93ac4f_qps_10_c_16_1024_none_mtls_baseline')).toBe('baseline');
    expect(modeFromLabel('b4d28171_qps_1000_c_64_1024_none_base')).toBe('baseline');
    expect(modeFromLabel('e955a07e_qps_1000_c_64_1024_serveronly')).toBe('serveronly');
    expect(modeFromLabel('x_clientonly')).toBe('clientonly');
    expect(modeFromLabel('Nighthawk abc_both')).toBe('both');
  });
  it('finds none in free text', () => {
    expect(modeFromLabel('A random label')).toBeNull();
    expect(modeFromLabel('ingress to s2 qps_400 0.6.0')).toBeNull();
    expect(modeFromLabel('database')).toBeNull();
  });
});

describe('spanMs and goDurationSeconds', () => {
  it('subtracts RFC 3339 times to the nanosecond', () => {
    expect(spanMs('2020-03-17T14:53:05.499893378Z', '2020-03-17T17:53:05.530905194Z')).toBe(
      10800031.011816,
    );
    expect(spanMs('2024-01-01T01:00:00+01:00', '2024-01-01T00:00:01Z')).toBe(1000);
    expect(spanMs('2024-01-01T00:00:01Z', '2024-01-01T00:00:00Z')).toBeNull();
  });
  it('reads Go durations', () => {
    expect(goDurationSeconds('30s')).toBe(30);
    expect(goDurationSeconds('1m0s')).toBe(60);
    expect(goDurationSeconds('1h2m3.5s')).toBe(3723.5);
    expect(goDurationSeconds('exactly 100 calls')).toBeNull();
  });
});
