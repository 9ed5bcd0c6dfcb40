import { describe, expect, it } from 'vitest';
import { loadViewFromSearch, loadViewToSearch, percentilesQuery } from './load-view.ts';

describe('data-plane view in the URL', () => {
  it('reads the defaults from an empty URL', () => {
    expect(loadViewFromSearch(new URLSearchParams())).toEqual({
      axis: null,
      rate: null,
      connections: null,
      percentile: 90,
      percentiles: [50, 90, 99],
      limit: 5,
    });
  });

  it('reads the axis, the groups, any percentiles and the limit', () => {
    const v = loadViewFromSearch(
      new URLSearchParams('axis=rps&connections=16&percentiles=50,99.9&percentile=99.9&limit=3'),
    );
    expect(v).toEqual({
      axis: 'rps',
      rate: null,
      connections: 'connections:16',
      percentile: 99.9,
      percentiles: [50, 99.9],
      limit: 3,
    });
    expect(percentilesQuery(v)).toBe('50,99.9');
  });

  it('falls back on malformed values', () => {
    const v = loadViewFromSearch(
      new URLSearchParams('axis=time&connections=x&percentile=42&limit=-1&percentiles=a'),
    );
    expect([v.axis, v.connections, v.percentile, v.limit, v.percentiles]).toEqual([
      null,
      null,
      90,
      5,
      [50, 90, 99],
    ]);
    expect(percentilesQuery(v)).toBeUndefined();
  });

  it('writes a change, leaving defaults out and other parameters alone', () => {
    const s = new URLSearchParams('change=c1&limit=3');
    expect(loadViewToSearch(s, { axis: 'rps', connections: 'connections:16' }).toString()).toBe(
      'change=c1&limit=3&axis=rps&connections=16',
    );
    expect(loadViewToSearch(s, { limit: 5 }).toString()).toBe('change=c1');
  });
});
