// The runs' scale-up timelines aligned at their starts: per lifecycle phase the cumulative
// counts of every run on one chart, then one picked metric series the runs share, all on one
// time axis, with the times to 50/90/100 % behind them. Shown when a run has a timeline.
import type { Timeline } from '@meshbench/schema';
import { useMemo } from 'react';
import { formatCount } from '../../../charts/prepare/format.ts';
import { formatOffset, formatValue } from '../../../charts/prepare/timeline.ts';
import {
  type ComparedPhase,
  comparedPhases,
  comparedSeries,
  defaultSeries,
  overlayDomain,
  overlayRows,
  phaseLines,
  seriesLines,
} from '../../../charts/prepare/timeline-overlay.ts';
import { TimelineOverlayChart } from '../../../charts/TimelineOverlayChart.tsx';
import { useUrlParam, withParam } from '../../../ui/url-state.ts';
import type { ComparedRun } from '../prepare/compared-runs.ts';
import { SeriesLegend } from './SeriesLegend.tsx';

const PERCENTS = [50, 90, 100] as const;

/** True when the timeline has something to draw. */
const drawable = (t: Timeline | null | undefined): t is Timeline =>
  !!t && (t.phases.length > 0 || t.series.length > 0);

function PhaseChart({
  phase,
  runs,
  domain,
}: {
  phase: ComparedPhase;
  runs: ComparedRun[];
  domain: [number, number];
}) {
  const rows = useMemo(
    () =>
      overlayRows(
        phaseLines(
          phase,
          runs.map((r) => r.key),
        ),
      ),
    [phase, runs],
  );
  const drawn = runs.filter((_, i) => phase.runs[i] !== null);
  const totals = new Map(runs.map((r, i) => [r.key, phase.runs[i]?.total ?? null]));
  return (
    <div className="overlay-cell" data-testid="compare-phase" data-phase={phase.phase}>
      <div className="overlay-title">{phase.phase}</div>
      <TimelineOverlayChart
        rows={rows}
        lines={drawn}
        domain={domain}
        unit={null}
        height={190}
        kind="cumulative"
        format={(key, v) => `${formatCount(v)} of ${formatCount(totals.get(key) ?? null)}`}
        testId="compare-phase-chart"
      />
    </div>
  );
}

function PhaseTable({ runs, timelines }: { runs: ComparedRun[]; timelines: (Timeline | null)[] }) {
  const phases = comparedPhases(timelines);
  return (
    <div className="table-wrap">
      <table className="data compact" data-testid="compare-timeline-table">
        <thead>
          <tr>
            <th>Phase</th>
            <th>Run</th>
            <th className="num">Reached</th>
            {PERCENTS.map((p) => (
              <th key={p} className="num">
                {p} %
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {phases.flatMap(({ phase }) =>
            runs.map((r, i) => {
              const p = timelines[i]?.phases.find((x) => x.phase === phase);
              return (
                <tr
                  key={`${phase}-${r.key}`}
                  data-testid="compare-timeline-row"
                  data-phase={phase}
                  data-run-key={r.key}
                >
                  <td>{phase}</td>
                  <td>
                    <span
                      className="mesh-swatch swatch-inline"
                      style={{ background: r.style.color }}
                      aria-hidden="true"
                    />{' '}
                    {r.label}
                  </td>
                  <td className="num" data-testid="reached">
                    {p ? `${formatCount(p.count)} / ${formatCount(p.total)}` : 'none'}
                  </td>
                  {PERCENTS.map((pc) => (
                    <td key={pc} className="num" data-testid={`time-to-${pc}`}>
                      {formatOffset(p?.timeTo.find((x) => x.percent === pc)?.offsetMs ?? null)}
                    </td>
                  ))}
                </tr>
              );
            }),
          )}
        </tbody>
      </table>
    </div>
  );
}

const readPicked = (s: URLSearchParams) => s.get('compareSeries');
const writePicked = (s: URLSearchParams, name: string | null) =>
  withParam(s, 'compareSeries', name);

export function TimelineOverlayPanel({
  runs,
  timelines,
}: {
  runs: ComparedRun[];
  /** One per run: null when it has none, undefined while it loads. */
  timelines: (Timeline | null | undefined)[];
}) {
  const settled = useMemo(() => timelines.map((t) => (drawable(t) ? t : null)), [timelines]);
  const phases = useMemo(() => comparedPhases(settled), [settled]);
  const series = useMemo(() => comparedSeries(settled), [settled]);
  // In the URL (`?compareSeries=`), so a copied link draws the same series.
  const [picked, setPicked] = useUrlParam(readPicked, writePicked);
  const shownName = series.some((s) => s.name === picked) ? picked : defaultSeries(series);
  const shown = series.find((s) => s.name === shownName);
  const keys = useMemo(() => runs.map((r) => r.key), [runs]);
  const seriesRows = useMemo(
    () => (shown ? overlayRows(seriesLines(shown, keys)) : []),
    [shown, keys],
  );
  if (!settled.some((t) => t !== null)) return null;
  const domain = overlayDomain(settled);
  const durations = new Map(runs.map((r, i) => [r.key, settled[i]?.durationMs ?? null]));
  const loading = timelines.some((t) => t === undefined);
  return (
    <section className="compare-section" data-testid="compare-timelines">
      <div className="section-head">
        <div>
          <h2>Scale-up timelines</h2>
          <p className="muted">
            Aligned at each run's start: the time axis is time since the run started
            {loading && ' (loading the other runs…)'}
          </p>
        </div>
      </div>
      <SeriesLegend
        runs={runs}
        note={(r) => {
          const ms = durations.get(r.key);
          return ms === null || ms === undefined ? 'no timeline' : `${formatOffset(ms)} long`;
        }}
      />
      <div className="overlay-stack">
        {phases.length > 0 && (
          <div className="panel">
            <div className="panel-head">
              <div>
                <h3>Lifecycle: cumulative count per phase</h3>
                <p className="panel-sub">Entities that reached each phase, every run</p>
              </div>
            </div>
            <div className="overlay-grid">
              {phases.map((p) => (
                <PhaseChart key={p.phase} phase={p} runs={runs} domain={domain} />
              ))}
            </div>
          </div>
        )}
        {series.length > 0 && shown && (
          <div className="panel" data-testid="compare-series">
            <div className="panel-head">
              <div>
                <h3>Metric series</h3>
                <p className="panel-sub">
                  {shown.name}
                  {shown.unit ? ` (${shown.unit})` : ''}: {shown.present} of {runs.length} runs
                </p>
              </div>
              <label className="overlay-picker">
                Series{' '}
                <select
                  value={shown.name}
                  onChange={(e) => setPicked(e.target.value)}
                  data-testid="compare-series-picker"
                >
                  {series.map((s) => (
                    <option key={s.name} value={s.name}>
                      {s.name} ({s.present} runs)
                    </option>
                  ))}
                </select>
              </label>
            </div>
            <TimelineOverlayChart
              rows={seriesRows}
              lines={runs.filter((_, i) => shown.runs[i] !== null)}
              domain={domain}
              unit={shown.unit}
              height={220}
              kind="series"
              format={(_, v) => formatValue(v, shown.unit)}
              testId="compare-series-chart"
            />
          </div>
        )}
        {phases.length > 0 && <PhaseTable runs={runs} timelines={settled} />}
      </div>
    </section>
  );
}
