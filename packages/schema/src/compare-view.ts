// The compare page's first read: what its table of differences needs, in one answer (the
// runs, their changes, each paired change's summary, the runs' headlines, whether they can be
// compared, and which runs have load results or a timeline to ask for).
import { z } from 'zod';
import { comparability, comparabilityQuery } from './comparability.ts';
import { changeList, propagation, propagationQuery } from './propagation.ts';
import { run, runHeadline } from './run.ts';

export const compareViewQuery = z.object({
  runs: comparabilityQuery.shape.runs,
  percentiles: propagationQuery.shape.percentiles,
  withinMs: propagationQuery.shape.withinMs,
  bins: propagationQuery.shape.bins,
  scale: propagationQuery.shape.scale,
});
export type CompareViewQuery = z.input<typeof compareViewQuery>;

export const compareView = z.object({
  /** The runs in the order asked, the first the baseline. */
  runs: z.array(run),
  /** Each run's changes (GET /runs/{id}/changes), in the order of runs. */
  changes: z.array(changeList),
  /**
   * The summary (GET /runs/{id}/changes/{changeId}/propagation with this read's percentiles,
   * withinMs, bins and scale) of each change the compare page pairs (pairChanges).
   */
  summaries: z.array(z.object({ runId: z.uuid(), changeId: z.string(), summary: propagation })),
  /** The runs' headlines (GET /runs/headlines); a run with nothing to head is left out. */
  headlines: z.array(runHeadline),
  /** GET /compare/comparability of the runs. */
  comparability,
  /** Per run, in the order of runs: whether it has load results, and a timeline (phases or series). */
  has: z.array(z.object({ loadResults: z.boolean(), timeline: z.boolean() })),
});
export type CompareView = z.infer<typeof compareView>;
