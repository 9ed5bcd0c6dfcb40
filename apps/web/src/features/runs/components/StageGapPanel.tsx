// The per-proxy gap between two stages of a change (serving minus received, or the first
// and last stages it has): how long a proxy took from one to the other, as a histogram
// with its percentiles, and how many proxies were seen at only one of the two.
import type { StageCount } from '@meshbench/schema';
import { HistogramChart } from '../../../charts/HistogramChart.tsx';
import { formatCount, formatDurationMs } from '../../../charts/prepare/format.ts';
import { prepareHistogram } from '../../../charts/prepare/histogram.ts';
import { PercentileValue } from '../../../ui/PercentileValue.tsx';
import { ErrorMessage, Loading } from '../../../ui/QueryState.tsx';
import { GAP_PERCENTILES, gapStages, useStageGap } from '../hooks/use-stage-gap.ts';

export function StageGapPanel({
  runId,
  changeId,
  stages,
  color,
}: {
  runId: string;
  changeId: string;
  stages: readonly StageCount[];
  color: string;
}) {
  const pair = gapStages(stages);
  if (!pair) return null;
  return <GapPanel runId={runId} changeId={changeId} color={color} {...pair} />;
}

function GapPanel({
  runId,
  changeId,
  from,
  to,
  color,
}: {
  runId: string;
  changeId: string;
  from: string;
  to: string;
  color: string;
}) {
  const { summary: gap, histogram: ranged } = useStageGap(runId, changeId, from, to);
  const g = gap.data;
  const h = ranged.data ?? g;
  const histogram = h
    ? prepareHistogram(
        {
          histogram: h.histogram,
          underflow: h.underflow,
          overflow: h.overflow,
          scale: 'linear',
          percentiles: h.percentiles,
        },
        { percentiles: GAP_PERCENTILES, withinMs: null },
      )
    : null;
  // Below the range (which starts at 0) are the proxies seen at `to` before `from`.
  const below = histogram?.belowNote && h ? `${formatCount(h.underflow)} below 0 not shown` : null;
  const notes = [below, histogram?.aboveNote].filter(Boolean);
  return (
    <div className="panel" data-testid="stage-gap-panel">
      <div className="panel-head">
        <div>
          <h3>
            From {from} to {to}
          </h3>
          <p className="panel-sub">
            Per proxy: its first {to} minus its first {from}
          </p>
        </div>
      </div>
      {gap.isPending ? (
        <Loading what="the gap between stages" />
      ) : gap.isError ? (
        <ErrorMessage error={gap.error} what="the gap between stages" />
      ) : g ? (
        <>
          <div className="chart-box" data-testid="stage-gap-chart">
            {histogram ? (
              <HistogramChart
                histogram={histogram}
                color={color}
                height={200}
                axisTitle={`${to} minus ${from}`}
              />
            ) : (
              <p className="state">No proxy was seen at both stages.</p>
            )}
          </div>
          <p className="chart-note">{notes.length > 0 ? notes.join(' · ') : '\u00a0'}</p>
          <div className="table-wrap">
            <table className="data stat-table" data-testid="stage-gap-table">
              <thead>
                <tr>
                  <th className="num" title={`proxies seen at both ${from} and ${to}`}>
                    Proxies
                  </th>
                  <th className="num">Min</th>
                  {g.percentiles.map((p) => (
                    <th key={p.p} className="num">
                      P{p.p}
                    </th>
                  ))}
                  <th className="num">Mean</th>
                  <th className="num">Max</th>
                  <th className="num" title={`seen at ${from}, never at ${to}`}>
                    Only {from}
                  </th>
                  <th className="num" title={`seen at ${to}, never at ${from}`}>
                    Only {to}
                  </th>
                </tr>
              </thead>
              <tbody>
                <tr>
                  <td className="num" data-testid="gap-count">
                    {formatCount(g.count)}
                  </td>
                  <td className="num">{formatDurationMs(g.minMs)}</td>
                  {g.percentiles.map((p) => (
                    <td key={p.p} className="num" data-testid={`gap-p${p.p}`}>
                      <PercentileValue ms={p.ms} accuracy={p} />
                    </td>
                  ))}
                  <td className="num">{formatDurationMs(g.meanMs)}</td>
                  <td className="num">{formatDurationMs(g.maxMs)}</td>
                  <td className="num">{formatCount(g.onlyFrom)}</td>
                  <td className="num">{formatCount(g.onlyTo)}</td>
                </tr>
              </tbody>
            </table>
          </div>
          {g.negative > 0 && (
            <p className="chart-note">
              {formatCount(g.negative)} proxies were seen at {to} before {from} (clock skew between
              probes, or a probe that missed the first {from}).
            </p>
          )}
        </>
      ) : null}
    </div>
  );
}
