// The compare and report pages' data-plane and scale-up overlays, loaded with their code (and
// the chart kinds only they draw) when a compared run has something for them: a comparison of
// propagation runs does without both.
import type { StoredLoadResult, Timeline } from '@meshbench/schema';
import { lazy, Suspense } from 'react';
import { Loading } from '../../../ui/QueryState.tsx';
import type { ComparedRun } from '../prepare/compared-runs.ts';

const LoadOverlayPanel = lazy(() =>
  import('./LoadOverlayPanel.tsx').then((m) => ({ default: m.LoadOverlayPanel })),
);
const TimelineOverlayPanel = lazy(() =>
  import('./TimelineOverlayPanel.tsx').then((m) => ({ default: m.TimelineOverlayPanel })),
);

/** LoadOverlayPanel, once a run has load results (it draws nothing without). */
export function LazyLoadOverlayPanel(props: {
  runs: ComparedRun[];
  /** One per run: undefined while it loads. */
  results: (StoredLoadResult[] | undefined)[];
}) {
  if (!props.results.some((r) => (r?.length ?? 0) > 0)) return null;
  return (
    <Suspense fallback={<Loading what="the data-plane charts" />}>
      <LoadOverlayPanel {...props} />
    </Suspense>
  );
}

/** TimelineOverlayPanel, once a run has a timeline (it draws nothing without). */
export function LazyTimelineOverlayPanel(props: {
  runs: ComparedRun[];
  /** One per run: null when it has none, undefined while it loads. */
  timelines: (Timeline | null | undefined)[];
}) {
  if (!props.timelines.some((t) => !!t && (t.phases.length > 0 || t.series.length > 0)))
    return null;
  return (
    <Suspense fallback={<Loading what="the timelines" />}>
      <TimelineOverlayPanel {...props} />
    </Suspense>
  );
}
