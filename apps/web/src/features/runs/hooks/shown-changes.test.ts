import type { ChangeList } from '@meshbench/schema';
import { describe, expect, it } from 'vitest';
import { shownChanges } from './shown-changes.ts';

const change = (id: string): ChangeList[number] => ({
  id,
  kind: 'endpoint',
  target: 't',
  action: 'add',
  at: '2026-02-01T10:00:00.000000Z',
  expected: null,
  count: 1,
  repeats: 0,
  beforeChange: 0,
  stages: [{ stage: 'applied', count: 1, observations: 1 }],
});
const ids = (cs: ChangeList) => cs.map((c) => c.id);

describe('shownChanges', () => {
  it('shows the one change of a one-change run, whatever the URL says', () => {
    expect(ids(shownChanges([change('c1')], 'c9'))).toEqual(['c1']);
    expect(ids(shownChanges([], null))).toEqual([]);
  });

  it('shows the change the URL names in a run of several, else the first', () => {
    const run = [change('c1'), change('c2'), change('c3')];
    expect(ids(shownChanges(run, 'c2'))).toEqual(['c2']);
    expect(ids(shownChanges(run, null))).toEqual(['c1']);
    expect(ids(shownChanges(run, 'nope'))).toEqual(['c1']);
  });
});
