import { describe, expect, it } from 'vitest';
import { compareVersions, versionNumbers } from './versions.ts';

describe('compareVersions', () => {
  it('puts 1.10.0 after 1.9.5, as a person reads versions (text order has it before)', () => {
    expect(['1.10.0', '1.9.5'].sort()).toEqual(['1.10.0', '1.9.5']);
    expect(['1.10.0', '1.9.5', '1.2.0', '1.22.1'].sort(compareVersions)).toEqual([
      '1.2.0',
      '1.9.5',
      '1.10.0',
      '1.22.1',
    ]);
  });
  it('reads a leading v, puts a prefix first, and a suffix after the bare version', () => {
    expect(['1.10.0', 'v1.9.0', '1.10', '1.10.0-rc1'].sort(compareVersions)).toEqual([
      'v1.9.0',
      '1.10',
      '1.10.0',
      '1.10.0-rc1',
    ]);
  });
  it('puts names without leading numbers last, by text', () => {
    expect(['main', '2.0', 'dev', '10.0'].sort(compareVersions)).toEqual([
      '2.0',
      '10.0',
      'dev',
      'main',
    ]);
  });
  it('reads the leading numbers only', () => {
    expect(versionNumbers('v1.22.0-beta.3')).toEqual([1, 22, 0]);
    expect(versionNumbers('nightly')).toBeNull();
  });
});

describe('compareVersions as a comparator', () => {
  // Each version strictly before the next, as a person reads them.
  const ORDERED = [
    '0.9',
    'v1',
    '1.2.0',
    '1.9.5',
    'V1.10',
    '1.10.0',
    '1.10.0-rc1',
    'v1.10.0',
    '1.10.1',
    '1.22.1',
    '2',
    '10.0',
    'dev',
    'main',
    'release-2',
  ];

  it('answers -1 before, 1 after and 0 for the same text, for every pair either way round', () => {
    for (const [i, a] of ORDERED.entries()) {
      expect(compareVersions(a, a), a).toBe(0);
      for (const b of ORDERED.slice(i + 1)) {
        expect(compareVersions(a, b), `${a} < ${b}`).toBe(-1);
        expect(compareVersions(b, a), `${b} > ${a}`).toBe(1);
      }
    }
  });

  it('sorts any order of them into that order', () => {
    const shuffled = [...ORDERED].reverse();
    shuffled.push(...shuffled.splice(0, 5));
    expect(shuffled.sort(compareVersions)).toEqual(ORDERED);
  });

  it('orders versions with the same numbers by their text: v1.2 and 1.2 are two versions', () => {
    // '1' (0x31) is before 'v' (0x76) and 'V' (0x56).
    expect(compareVersions('1.2', 'v1.2')).toBe(-1);
    expect(compareVersions('V1.2', 'v1.2')).toBe(-1);
    expect(compareVersions('v1.2', '1.2')).toBe(1);
  });

  it('reads numbers only at the start, after an optional v or V', () => {
    expect(versionNumbers('V2.0')).toEqual([2, 0]);
    expect(versionNumbers('10.20.300')).toEqual([10, 20, 300]);
    expect(versionNumbers('1.')).toEqual([1]);
    expect(versionNumbers('release-2.1')).toBeNull();
    expect(versionNumbers('vv1')).toBeNull();
    expect(versionNumbers('x1.2')).toBeNull();
    expect(versionNumbers('')).toBeNull();
  });
});
