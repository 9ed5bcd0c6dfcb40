import { describe, expect, it } from 'vitest';
import { rangeText, readChoice, readList, readRange, scaleKey, withParam } from './url-state.ts';

describe('url-state', () => {
  it('sets, lists and removes a parameter, keeping the others', () => {
    const s = new URLSearchParams('change=c1&series=x');
    expect(withParam(s, 'series', ['a', 'b']).toString()).toBe('change=c1&series=a&series=b');
    expect(withParam(s, 'series', []).toString()).toBe('change=c1&series=');
    expect(withParam(s, 'series', null).toString()).toBe('change=c1');
    expect(withParam(s, 'zoom', '1-2').toString()).toBe('change=c1&series=x&zoom=1-2');
    // The input is left as it was.
    expect(s.toString()).toBe('change=c1&series=x');
  });
  it('reads a choice, falling back on what is absent or unknown', () => {
    const values = ['linear', 'log'] as const;
    expect(readChoice(new URLSearchParams('a=linear'), 'a', values, 'log')).toBe('linear');
    expect(readChoice(new URLSearchParams('a=cubic'), 'a', values, 'log')).toBe('log');
    expect(readChoice(new URLSearchParams(''), 'a', values, 'log')).toBe('log');
  });
  it('reads a list: absent is null (the default), one empty value is none', () => {
    expect(readList(new URLSearchParams(''), 'series')).toBeNull();
    expect(readList(new URLSearchParams('series='), 'series')).toEqual([]);
    expect(readList(new URLSearchParams('series=a%2Cb&series=c'), 'series')).toEqual(['a,b', 'c']);
  });
  it('reads and writes a range of whole ms, lower first', () => {
    expect(readRange(new URLSearchParams('zoom=1000-5000'), 'zoom')).toEqual({
      from: 1000,
      to: 5000,
    });
    for (const bad of ['5000-1000', '7-7', '-5-10', '1.5-3', 'abc', ''])
      expect(readRange(new URLSearchParams({ zoom: bad }), 'zoom')).toBeNull();
    expect(rangeText({ from: 4999.6, to: 1000.2 })).toBe('1000-5000');
  });
  it('names a scale parameter after its toggle, like ?heatmapScale=', () => {
    expect(scaleKey('heatmap')).toBe('heatmapScale');
    expect(scaleKey('compare-convergence')).toBe('compareConvergenceScale');
  });
});
