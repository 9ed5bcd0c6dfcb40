// Every data-plane chart of one run or of several overlaid, under one set of controls: the
// axis (connections at one rate, or the rate at one connection count), the group drawn, the
// percentile, and the tail-band limit. The view is the caller's (the page's URL).
import { type ReactNode, useMemo } from 'react';
import {
  asRuns,
  defaultAxis,
  type LoadResultsInput,
  settleSlice,
} from '../../../charts/prepare/load-results.ts';
import type { LoadView } from '../hooks/load-view.ts';
import { AddedLatencyPanel } from './AddedLatencyPanel.tsx';
import { ErrorsPanel } from './ErrorsPanel.tsx';
import { LatencyPanel } from './LatencyPanel.tsx';
import { LoadControls } from './LoadControls.tsx';
import { ProxyCpuPanel, ProxyMemoryPanel } from './ProxyResourcePanels.tsx';
import { TailBandPanel } from './TailBandPanel.tsx';
import { ThroughputPanel } from './ThroughputPanel.tsx';
import '../load-results.css';

export function LoadResultsReport({
  data,
  view,
  onView,
  children,
}: {
  /** One run's results, or several runs ([{label, color, results}]) to overlay. */
  data: LoadResultsInput;
  view: LoadView;
  onView: (patch: Partial<LoadView>) => void;
  /** More panels for the end of the grid (the run page's upload form). */
  children?: ReactNode;
}) {
  const runs = useMemo(() => asRuns(data), [data]);
  const axis = useMemo(() => view.axis ?? defaultAxis(runs), [view.axis, runs]);
  const { slice, groups } = useMemo(
    () => settleSlice(runs, axis, axis === 'connections' ? view.rate : view.connections),
    [runs, axis, view.rate, view.connections],
  );
  const sliced = { data, axis, sliceKey: slice.key };
  return (
    <div className="load-report" data-testid="load-report" data-axis={axis}>
      <LoadControls view={view} axis={axis} slice={slice} groups={groups} onChange={onView} />
      <div className="chart-grid load-grid">
        <LatencyPanel {...sliced} percentile={view.percentile} percentiles={view.percentiles} />
        <AddedLatencyPanel {...sliced} percentile={view.percentile} />
        <ErrorsPanel {...sliced} />
        <ProxyCpuPanel data={data} />
        <ProxyMemoryPanel data={data} />
        <ThroughputPanel {...sliced} />
        <TailBandPanel
          {...sliced}
          limit={view.limit}
          onLimitChange={(limit) => onView({ limit })}
        />
        {children}
      </div>
    </div>
  );
}
