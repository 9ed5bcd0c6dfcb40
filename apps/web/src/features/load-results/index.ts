// The data-plane charts, for the run page and for any page that overlays runs (compare,
// reports): each takes one run's results or several runs' as [{label, color, results}].
export type {
  LoadPercentile,
  LoadResultsInput,
  LoadResultsRun,
} from '../../charts/prepare/load-results.ts';
export { rateGroups } from '../../charts/prepare/load-results.ts';
export { AddedLatencyPanel } from './components/AddedLatencyPanel.tsx';
export { DataPlaneSection } from './components/DataPlaneSection.tsx';
export { ErrorsPanel } from './components/ErrorsPanel.tsx';
export { LatencyPanel } from './components/LatencyPanel.tsx';
export { LoadControls } from './components/LoadControls.tsx';
export { LoadResultsReport } from './components/LoadResultsReport.tsx';
export { ProxyCpuPanel, ProxyMemoryPanel } from './components/ProxyResourcePanels.tsx';
export type { LoadPanelProps } from './components/panel-props.ts';
export { StagesView } from './components/StagesSection.tsx';
export { TailBandPanel } from './components/TailBandPanel.tsx';
export { ThroughputPanel } from './components/ThroughputPanel.tsx';
export { UploadResultsForm } from './components/UploadResultsForm.tsx';
export type { LoadView } from './hooks/load-view.ts';
export { percentilesQuery } from './hooks/load-view.ts';
export { useLoadView } from './hooks/use-load-view.ts';
