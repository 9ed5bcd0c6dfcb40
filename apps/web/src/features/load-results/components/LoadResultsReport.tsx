// Every data-plane chart of one run or of several overlaid, under one set of controls: the
// rate the connection charts are drawn at, the percentile, and the tail-band limit.
import { type ReactNode, useMemo, useState } from 'react';
import {
  asRuns,
  DEFAULT_TAIL_BAND_LIMIT,
  defaultRateKey,
  LOAD_PERCENTILES,
  type LoadPercentile,
  type LoadResultsInput,
  rateGroups,
} from '../../../charts/prepare/load-results.ts';
import { AddedLatencyPanel } from './AddedLatencyPanel.tsx';
import { ErrorsPanel } from './ErrorsPanel.tsx';
import { LatencyVsConnectionsPanel } from './LatencyVsConnectionsPanel.tsx';
import { ProxyCpuPanel, ProxyMemoryPanel } from './ProxyResourcePanels.tsx';
import { TailBandPanel } from './TailBandPanel.tsx';
import { ThroughputPanel } from './ThroughputPanel.tsx';
import '../load-results.css';

export function LoadResultsReport({
  data,
  initialPercentile = 90,
  children,
}: {
  /** One run's results, or several runs ([{label, color, results}]) to overlay. */
  data: LoadResultsInput;
  initialPercentile?: LoadPercentile;
  /** More panels for the end of the grid (the run page's upload form). */
  children?: ReactNode;
}) {
  const groups = useMemo(() => rateGroups(asRuns(data)), [data]);
  const [rateChoice, setRateChoice] = useState<string | null>(null);
  const [percentile, setPercentile] = useState<LoadPercentile>(initialPercentile);
  const [limit, setLimit] = useState(DEFAULT_TAIL_BAND_LIMIT);
  const rateKey = groups.some((g) => g.key === rateChoice) ? rateChoice : defaultRateKey(groups);
  return (
    <div className="load-report" data-testid="load-report">
      <div className="load-controls">
        {groups.length > 1 && (
          <label>
            <span>Rate</span>
            <select
              value={rateKey ?? ''}
              data-testid="load-rate"
              onChange={(e) => setRateChoice(e.currentTarget.value)}
            >
              {groups.map((g) => (
                <option key={g.key} value={g.key}>
                  {g.label} ({g.points} point{g.points === 1 ? '' : 's'})
                </option>
              ))}
            </select>
          </label>
        )}
        <fieldset className="segmented" aria-label="latency percentile">
          {LOAD_PERCENTILES.map((p) => (
            <button
              key={p}
              type="button"
              aria-pressed={percentile === p}
              data-testid={`load-percentile-p${p}`}
              onClick={() => setPercentile(p)}
            >
              P{p}
            </button>
          ))}
        </fieldset>
      </div>
      <div className="chart-grid load-grid">
        <LatencyVsConnectionsPanel data={data} rateKey={rateKey} percentile={percentile} />
        <AddedLatencyPanel data={data} rateKey={rateKey} percentile={percentile} />
        <ProxyCpuPanel data={data} />
        <ProxyMemoryPanel data={data} />
        <ThroughputPanel data={data} rateKey={rateKey} />
        <ErrorsPanel data={data} rateKey={rateKey} />
        <TailBandPanel data={data} rateKey={rateKey} limit={limit} onLimitChange={setLimit} />
        {children}
      </div>
    </div>
  );
}
