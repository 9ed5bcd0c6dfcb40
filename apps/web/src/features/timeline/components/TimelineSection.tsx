// The run's scale-up timeline: fetches it and, when the run has one, hands it to TimelineView
// with the distributions of its series.
import { runTimelineUrl } from '../../../api/urls.ts';
import { ErrorMessage, Loading } from '../../../ui/QueryState.tsx';
import { hasTimeline, TIMELINE_POINTS, useTimeline } from '../hooks/use-timeline.ts';
import { SeriesStatsTable } from './SeriesStatsTable.tsx';
import { TimelineView } from './TimelineView.tsx';
import '../timeline.css';

export function TimelineSection({ runId }: { runId: string }) {
  const timeline = useTimeline(runId);
  if (timeline.isPending) return <Loading what="timeline" />;
  if (timeline.isError) return <ErrorMessage error={timeline.error} what="the timeline" />;
  if (!hasTimeline(timeline.data)) return null;
  return (
    <section className="timeline-section" data-testid="timeline-section">
      <header className="change-head">
        <h2>Scale-up timeline</h2>
      </header>
      <TimelineView
        t={timeline.data}
        jsonUrl={runTimelineUrl(runId, TIMELINE_POINTS)}
        seriesStats={<SeriesStatsTable runId={runId} />}
      />
    </section>
  );
}
