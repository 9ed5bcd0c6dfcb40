import { describe, expect, it } from 'vitest';
import { mark, progressBar } from './run-view.ts';

describe('run view', () => {
  it('fills the bar by whole cells, never past its width', () => {
    expect(progressBar(0, 100, 10)).toBe('[----------]');
    expect(progressBar(19, 100, 10)).toBe('[#---------]');
    expect(progressBar(20, 100, 10)).toBe('[##--------]');
    expect(progressBar(100, 100, 10)).toBe('[##########]');
    expect(progressBar(150, 100, 10)).toBe('[##########]');
    expect(progressBar(5, 0, 4)).toBe('[----]');
  });

  it('says how each percentile was obtained', () => {
    expect(mark({ exact: true, method: 'raw' })).toBe('exact');
    expect(mark({ exact: false, method: 'ddsketch', relativeError: 0.01 })).toBe('±1 %');
    expect(mark({ exact: false, method: 'explicit-histogram', lower: 5, upper: 10 })).toBe(
      'in [5, 10] ms',
    );
    expect(mark({ exact: false, method: 'explicit-histogram', lower: 5, upper: null })).toBe(
      'in [5, ∞] ms',
    );
    expect(mark({ exact: false, method: 'reported' })).toBe('estimate (reported)');
  });
});
