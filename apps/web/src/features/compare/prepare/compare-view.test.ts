import type { CompareView, Propagation, RunHeadline } from '@meshbench/schema';
import { describe, expect, it } from 'vitest';
import { headlinesByRun, pairSummaries, runsWith } from './compare-view.ts';

// Only the fields these functions read; the casts keep the fixtures to them.
const runs = [{ id: 'r0' }, { id: 'r1' }, { id: 'r2' }] as CompareView['runs'];
const summary = (tag: string) => ({ tag }) as unknown as Propagation;
const headline = (runId: string) => ({ runId, kind: 'scale-up' }) as unknown as RunHeadline;

describe('the compare read as the page draws it', () => {
  it("gives each run its paired change's summary, null where it has none", () => {
    const view = {
      runs,
      summaries: [
        { runId: 'r0', changeId: 'c1', summary: summary('r0 c1') },
        { runId: 'r0', changeId: 'c2', summary: summary('r0 c2') },
        { runId: 'r2', changeId: 'c2', summary: summary('r2 c2') },
      ],
    };
    expect(pairSummaries(view, [{ id: 'c2' }, null, { id: 'c2' }])).toEqual([
      summary('r0 c2'),
      null,
      summary('r2 c2'),
    ]);
    // A change the read has no summary of is not one of another run's.
    expect(pairSummaries(view, [{ id: 'c1' }, { id: 'c1' }, null])).toEqual([
      summary('r0 c1'),
      null,
      null,
    ]);
  });

  it('says of a run without a headline that it has none', () => {
    const byRun = headlinesByRun({ runs, headlines: [headline('r1')] });
    expect([...byRun]).toEqual([
      ['r0', null],
      ['r1', headline('r1')],
      ['r2', null],
    ]);
  });

  it('asks only the runs that have load results, or a timeline, for them', () => {
    const has = [
      { loadResults: true, timeline: false },
      { loadResults: false, timeline: false },
      { loadResults: true, timeline: true },
    ];
    expect(runsWith({ runs, has }, 'loadResults')).toEqual(['r0', 'r2']);
    expect(runsWith({ runs, has }, 'timeline')).toEqual(['r2']);
    expect(runsWith({ runs, has: [] }, 'timeline')).toEqual([]);
  });
});
