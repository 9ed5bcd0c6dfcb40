// A run's scale-up timeline drawn from one in hand: cumulative counts per lifecycle phase with
// the pending count, the placement rate, the picked metric series below on the same
// (zoomable) time axis with their min/max bands, markers at 50/90/99/100 % joined, and the
// numbers the benchmarks quote beside them. A view: TimelineSection fetches the timeline.
// The picked series (`?series=id&series=id`, `?series=` for none) and the zoom
// (`?zoom=from-to`, ms since the start) are in the URL, so a copied link shows the same view.
import type { Timeline } from '@meshbench/schema';
import { type ReactNode, useCallback, useId, useMemo, useState } from 'react';
import { formatCount } from '../../../charts/prepare/format.ts';
import {
  axisTitle,
  drawnSeries,
  joinMarkers,
  pendingPoints,
  ratePoints,
  scaleUpNumbers,
  scaleUpPhases,
  seriesGroups,
  seriesLabel,
} from '../../../charts/prepare/scale-up.ts';
import { tagText } from '../../../charts/prepare/series-stats.ts';
import {
  alignTimeline,
  formatOffset,
  formatRate,
  formatValue,
  isZoomDrag,
  meanRate,
  peakRate,
  rowsInDomain,
  seriesKey,
  zoomDomain,
} from '../../../charts/prepare/timeline.ts';
import { TimelineChart, type TimelineMarker } from '../../../charts/TimelineChart.tsx';
import { ChartTable } from '../../../ui/ChartTable.tsx';
import { rangeText, readList, readRange, useUrlParam, withParam } from '../../../ui/url-state.ts';
import { ScaleUpNumbers } from './ScaleUpNumbers.tsx';
import '../timeline.css';

const PERCENTS = [50, 90, 99, 100] as const;

/** The series shown at first: control-plane CPU, memory and xDS pushes when there. */
function defaultPicks(t: Timeline): string[] {
  // Every server's series of a metric: picking one of five would hide four.
  const names = [
    ...new Set(t.series.filter((s) => /cpu|mem|push/i.test(s.name)).map((s) => s.name)),
  ];
  const wanted = t.series.filter((s) => names.slice(0, 3).includes(s.name));
  return (wanted.length > 0 ? wanted : t.series.slice(0, 2)).map((s) => s.id);
}

const sameSet = (a: readonly string[], b: readonly string[]) =>
  a.length === b.length && a.every((x) => b.includes(x));

const readZoom = (s: URLSearchParams) => readRange(s, 'zoom');
const writeZoom = (s: URLSearchParams, zoom: { from: number; to: number } | null) =>
  withParam(s, 'zoom', zoom && rangeText(zoom));

function PhaseTable({ t }: { t: Timeline }) {
  return (
    <div className="table-wrap">
      <table className="data compact" data-testid="timeline-table">
        <thead>
          <tr>
            <th>Phase</th>
            <th className="num">Reached</th>
            {PERCENTS.map((p) => (
              <th key={p} className="num">
                {p} %
              </th>
            ))}
            <th className="num">Mean rate</th>
            <th className="num">Peak rate</th>
          </tr>
        </thead>
        <tbody>
          {t.phases.map((p) => {
            const t100 = p.timeTo.find((x) => x.percent === 100)?.offsetMs ?? null;
            return (
              <tr key={p.phase} data-testid={`timeline-phase-${p.phase}`}>
                <td>{p.phase}</td>
                <td className="num" title={`total from ${p.totalSource}`}>
                  {formatCount(p.count)} / {formatCount(p.total)}
                </td>
                {PERCENTS.map((pc) => (
                  <td key={pc} className="num" data-testid={`time-to-${pc}`}>
                    {formatOffset(p.timeTo.find((x) => x.percent === pc)?.offsetMs ?? null)}
                  </td>
                ))}
                <td className="num">{formatRate(meanRate(p.count, t100, p.points, t.bucketMs))}</td>
                <td className="num">{formatRate(peakRate(p.points))}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}

export function TimelineView({
  t,
  jsonUrl,
  seriesStats,
}: {
  t: Timeline;
  jsonUrl: string;
  /** Under the metric series: their distributions over the run. */
  seriesStats?: ReactNode;
}) {
  const defaults = useMemo(() => defaultPicks(t), [t]);
  const [picked, setPicked] = useUrlParam(
    useCallback((s: URLSearchParams) => readList(s, 'series') ?? defaults, [defaults]),
    useCallback(
      (s: URLSearchParams, ids: string[]) =>
        withParam(s, 'series', sameSet(ids, defaults) ? null : ids),
      [defaults],
    ),
  );
  const [zoom, setZoom] = useUrlParam(readZoom, writeZoom);
  const [dragging, setDragging] = useState<{ from: number; to: number } | null>(null);
  const [hovered, setHovered] = useState<string | null>(null);
  const hover = (key: string) => ({
    hovered: hovered === key,
    onHover: (over: boolean) => setHovered((h) => (over ? key : h === key ? null : h)),
  });

  const numbersId = useId();
  const { nodes, scheduled, running } = useMemo(() => scaleUpPhases(t.phases), [t.phases]);
  const numbers = useMemo(() => scaleUpNumbers(t), [t]);
  const pickedSeries = useMemo(
    () =>
      t.series
        .filter((s) => picked.includes(s.id))
        .map((s) => drawnSeries(s, t.series, t.bucketMs)),
    [t.series, t.bucketMs, picked],
  );
  // Derived lines: pending (scheduled - running) beside the phases, placements per second.
  const pending = useMemo(() => pendingPoints(scheduled, running), [scheduled, running]);
  const phaseInputs = useMemo(
    () => [
      ...t.phases,
      ...(pending && scheduled && running
        ? [{ phase: `pending (${scheduled.phase} − ${running.phase})`, points: pending }]
        : []),
    ],
    [t.phases, pending, scheduled, running],
  );
  const rateSeries = useMemo(
    () =>
      scheduled
        ? [
            {
              id: 'placement_rate',
              name: `${scheduled.phase} per second`,
              unit: '/s',
              points: ratePoints(scheduled),
            },
          ]
        : [],
    [scheduled],
  );
  const aligned = useMemo(
    () => alignTimeline(phaseInputs, [...rateSeries, ...pickedSeries]),
    [phaseInputs, rateSeries, pickedSeries],
  );
  const phaseLines = aligned.phases.map((l, i) =>
    i >= t.phases.length ? { ...l, dashed: true } : l,
  );
  const rateLine = rateSeries.length > 0 ? aligned.series[0] : undefined;
  const seriesLines = aligned.series.slice(rateSeries.length);
  const groups = seriesGroups(pickedSeries).map((g) => ({
    series: g,
    lines: g.flatMap((s) => seriesLines.filter((l) => l.key === seriesKey(s.id))),
  }));
  const full: [number, number] = [0, Math.max(t.durationMs, t.bucketMs)];
  const domain = zoomDomain(full, zoom, Math.min(1000, t.bucketMs));
  const rows = useMemo(() => rowsInDomain(aligned.rows, domain), [aligned.rows, domain]);
  const all = [...phaseLines, ...aligned.series];

  // When the nodes joined: labelled on the lifecycle chart, plain lines on the others.
  const joinMarks = (labelled: boolean): TimelineMarker[] =>
    joinMarkers(nodes, labelled ? domain : null);
  const levelMarks = (s: (typeof pickedSeries)[number]): TimelineMarker[] => {
    const out: TimelineMarker[] = [];
    if (s.levels?.peak != null)
      out.push({
        axis: 'y',
        at: s.levels.peak,
        label: `peak ${formatValue(s.levels.peak, s.unit)}`,
      });
    if (s.levels?.steady != null)
      out.push({
        axis: 'y',
        at: s.levels.steady,
        label: `steady ${formatValue(s.levels.steady, s.unit)}`,
        right: true,
      });
    return out;
  };

  const drag = {
    dragging,
    onDragStart: (x: number) => setDragging({ from: x, to: x }),
    onDragMove: (x: number) => setDragging((d) => (d ? { ...d, to: x } : d)),
    onDragEnd: () => {
      if (dragging && isZoomDrag(dragging.from, dragging.to, domain)) setZoom(dragging);
      setDragging(null);
    },
  };

  return (
    <>
      <div className="timeline-controls">
        <span className="muted">
          Drag across a chart to zoom ·{' '}
          {zoom ? (
            <>
              showing {formatOffset(domain[0])} – {formatOffset(domain[1])}{' '}
              <button
                type="button"
                className="button"
                onClick={() => setZoom(null)}
                data-testid="timeline-reset-zoom"
              >
                Reset zoom
              </button>
            </>
          ) : (
            <>whole run ({formatOffset(full[1])})</>
          )}
        </span>
        <a href={jsonUrl} className="muted">
          as JSON
        </a>
      </div>
      {(aligned.phases.length > 0 || numbers.length > 0) && (
        <div className="panel timeline-panel">
          <div className="panel-head">
            <div>
              <strong>Lifecycle: cumulative count per phase</strong>
              <p className="panel-sub">
                Entities that reached each phase, over time since the run started (
                {formatOffset(t.bucketMs)} buckets); dashed lines mark 50/90/99/100 % of the{' '}
                {nodes?.phase ?? 'nodes'}
              </p>
            </div>
          </div>
          <div className="timeline-with-numbers">
            <div aria-describedby={numbers.length > 0 ? numbersId : undefined}>
              {aligned.phases.length > 0 && (
                <TimelineChart
                  rows={rows}
                  lines={phaseLines}
                  all={all}
                  domain={domain}
                  height={280}
                  unit={null}
                  yTitle="count"
                  markers={joinMarks(true)}
                  legend
                  testId="timeline-phases-chart"
                  {...drag}
                  {...hover('phases')}
                />
              )}
              {rateLine && (
                <div className="timeline-series">
                  <div className="timeline-series-name" style={{ color: rateLine.color }}>
                    Placement rate: {rateLine.label}
                  </div>
                  <TimelineChart
                    rows={rows}
                    lines={[rateLine]}
                    all={all}
                    domain={domain}
                    height={150}
                    unit="/s"
                    yTitle="per second"
                    markers={joinMarks(false)}
                    testId="timeline-rate-chart"
                    {...drag}
                    {...hover('rate')}
                  />
                </div>
              )}
            </div>
            <ScaleUpNumbers numbers={numbers} id={numbersId} />
          </div>
          {/* The phase table directly under the chart it tabulates (issue 31). */}
          {t.phases.length > 0 && <PhaseTable t={t} />}
        </div>
      )}
      {t.series.length > 0 && (
        <div className="panel timeline-panel">
          <div className="panel-head">
            <div>
              <strong>Metric series</strong>
              <p className="panel-sub">
                On the same time axis, each with its per-bucket min–max band; a metric's series from
                several servers share a chart. Pick the series to draw
              </p>
            </div>
          </div>
          <fieldset className="series-picker" data-testid="series-picker">
            <legend>Series</legend>
            {t.series.map((s) => (
              <label key={s.id} title={tagText(s.tags)}>
                <input
                  type="checkbox"
                  checked={picked.includes(s.id)}
                  onChange={(e) =>
                    setPicked(
                      e.target.checked ? [...picked, s.id] : picked.filter((id) => id !== s.id),
                    )
                  }
                />{' '}
                {seriesLabel(s, t.series)}
                <span className="muted">
                  {' '}
                  ({s.source}
                  {s.unit ? `, ${s.unit}` : ''})
                </span>
              </label>
            ))}
          </fieldset>
          {groups.map(({ series: g, lines }) => {
            const first = g[0] as (typeof pickedSeries)[number];
            const key = lines.map((l) => l.key).join('-');
            return (
              <div key={key} className="timeline-series">
                <div
                  className="timeline-series-name"
                  style={{ color: lines.length === 1 ? lines[0]?.color : undefined }}
                >
                  {lines.length === 1 ? first.name : `${first.metric} (${lines.length} series)`}
                </div>
                <TimelineChart
                  rows={rows}
                  lines={lines}
                  all={all}
                  domain={domain}
                  height={lines.length > 1 ? 190 : 150}
                  unit={first.unit}
                  yTitle={axisTitle(first.unit)}
                  markers={[...joinMarks(false), ...(g.length === 1 ? levelMarks(first) : [])]}
                  legend={lines.length > 1}
                  testId="timeline-series-chart"
                  {...drag}
                  {...hover(key)}
                />
                <ChartTable
                  testId="timeline-series-table"
                  summary={`${lines.length === 1 ? first.name : `${first.name.replace(/ \{.*\}$/, '')} (${lines.length} series)`} as a table`}
                  columns={[
                    'time',
                    ...lines.flatMap((l) => (l.band ? [l.label, `${l.label} min–max`] : [l.label])),
                  ]}
                  rows={rows.map((row) => ({
                    key: String(row.t),
                    cells: [
                      formatOffset(row.t),
                      ...lines.flatMap((l) => {
                        const v = formatValue(row[l.key], first.unit);
                        return l.band
                          ? [
                              v,
                              `${formatValue(row[l.band.lo], first.unit)} – ${formatValue(row[l.band.hi], first.unit)}`,
                            ]
                          : [v];
                      }),
                    ],
                  }))}
                />
              </div>
            );
          })}
          {groups.length === 0 && <p className="state">No series picked.</p>}
          {seriesStats}
        </div>
      )}
      {t.phases.length > 0 && aligned.phases.length === 0 && numbers.length === 0 && (
        <PhaseTable t={t} />
      )}
    </>
  );
}
