// What the compare page draws from its one read (GET /compare): the summaries of a pair of
// changes, the headlines by run, and which runs to ask for load results and timelines (a run
// the read says has none is not asked: its answer would be empty).
import type { CompareView, Propagation, RunHeadline } from '@meshbench/schema';

/** Per run, the summary of its change in the pair: null where the run has no change to pair. */
export function pairSummaries(
  view: Pick<CompareView, 'runs' | 'summaries'>,
  changes: ({ id: string } | null)[],
): (Propagation | null)[] {
  return view.runs.map((run, i) => {
    const change = changes[i];
    if (!change) return null;
    return (
      view.summaries.find((s) => s.runId === run.id && s.changeId === change.id)?.summary ?? null
    );
  });
}

/** The headlines by run id; a run without one is null (nothing to say, not loading). */
export function headlinesByRun(
  view: Pick<CompareView, 'runs' | 'headlines'>,
): Map<string, RunHeadline | null> {
  const byId = new Map(view.headlines.map((h) => [h.runId, h]));
  return new Map(view.runs.map((r) => [r.id, byId.get(r.id) ?? null]));
}

/** The ids of the runs the read says have `what`: the only ones asked for it. */
export function runsWith(
  view: Pick<CompareView, 'runs' | 'has'>,
  what: keyof CompareView['has'][number],
): string[] {
  return view.runs.filter((_, i) => view.has[i]?.[what] === true).map((r) => r.id);
}
