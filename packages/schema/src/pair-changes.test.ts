import { describe, expect, it } from 'vitest';
import { pairChanges } from './pair-changes.ts';

const c = (id: string, n = 0) => ({ id, n });

describe('pairChanges', () => {
  it('pairs changes by id, in the baseline order, where every run has the id', () => {
    const pairs = pairChanges([
      [c('c1'), c('c2'), c('c3')],
      [c('c2', 1), c('c1', 1)],
      [c('c1', 2), c('c2', 2)],
    ]);
    expect(pairs.map((p) => p.title)).toEqual(['c1', 'c2']);
    expect(pairs[0]).toEqual({
      title: 'c1',
      matchedBy: 'id',
      changes: [c('c1'), c('c1', 1), c('c1', 2)],
    });
  });
  it('pairs the first change of each run when the ids differ', () => {
    expect(pairChanges([[c('a'), c('a2')], [c('b')], [c('c')]])).toEqual([
      { title: 'a / b / c', matchedBy: 'position', changes: [c('a'), c('b'), c('c')] },
    ]);
  });
  it('leaves a run without changes empty', () => {
    expect(pairChanges([[c('a')], []])).toEqual([
      { title: 'a', matchedBy: 'id', changes: [c('a'), null] },
    ]);
  });
  it('has nothing to pair without changes', () => {
    expect(pairChanges([[], []])).toEqual([]);
  });
});
