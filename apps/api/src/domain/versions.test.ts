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
