import { describe, expect, it } from 'vitest';
import { demoProgressText } from './demo-progress.ts';

describe('demoProgressText', () => {
  it('counts the demo runs while they load', () => {
    expect(demoProgressText({ state: 'loading', loaded: 12, total: 60 })).toBe(
      'Loading the demo: 12 of 60 runs (the list fills in as they arrive)',
    );
  });
  it('says nothing once every run is in place, while the live run still arrives', () => {
    expect(demoProgressText({ state: 'loading', loaded: 63, total: 63 })).toBeNull();
  });
  it('says nothing once loaded, or with no demo', () => {
    expect(demoProgressText({ state: 'loaded', loaded: 60, total: 60 })).toBeNull();
    expect(demoProgressText({ state: 'off', loaded: 0, total: 0 })).toBeNull();
    expect(demoProgressText(undefined)).toBeNull();
  });
  it('says where a failed load stopped', () => {
    expect(demoProgressText({ state: 'failed', loaded: 7, total: 60 })).toMatch(/7 of 60/);
  });
});
