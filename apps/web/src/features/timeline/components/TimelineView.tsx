// A run's scale-up timeline drawn from one in hand: cumulative counts per lifecycle phase, the
// picked metric series below on the same (zoomable) time axis, and time to 50/90/99/100 % per
// phase. A view: TimelineSection fetches the timeline.
import type { Timeline } from '@meshbench/schema';
import { type ReactNode, useMemo, useState } from 'react';
import { formatCount } from '../../../charts/prepare/format.ts';
import { tagText } from '../../../charts/prepare/series-stats.ts';
import {
  alignTimeline,
  formatOffset,
  formatRate,
  isZoomDrag,
  meanRate,
  peakRate,
  rowsInDomain,
  zoomDomain,
} from '../../../charts/prepare/timeline.ts';
import { TimelineChart } from '../../../charts/TimelineChart.tsx';
import '../timeline.css';

const PERCENTS = [50, 90, 99, 100] as const;

/** The series shown at first: control-plane CPU, memory and xDS pushes when there. */
function defaultPicks(t: Timeline): string[] {
  const wanted = t.series.filter((s) => /cpu|mem|push/i.test(s.name)).slice(0, 3);
  return (wanted.length > 0 ? wanted : t.series.slice(0, 2)).map((s) => s.id);
}

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
  const [picked, setPicked] = useState<string[]>(() => defaultPicks(t));
  const [zoom, setZoom] = useState<{ from: number; to: number } | null>(null);
  const [dragging, setDragging] = useState<{ from: number; to: number } | null>(null);
  const [hovered, setHovered] = useState<string | null>(null);
  const hover = (key: string) => ({
    hovered: hovered === key,
    onHover: (over: boolean) => setHovered((h) => (over ? key : h === key ? null : h)),
  });

  const pickedSeries = useMemo(
    () => t.series.filter((s) => picked.includes(s.id)),
    [t.series, picked],
  );
  const aligned = useMemo(() => alignTimeline(t.phases, pickedSeries), [t.phases, pickedSeries]);
  const full: [number, number] = [0, Math.max(t.durationMs, t.bucketMs)];
  const domain = zoomDomain(full, zoom, Math.min(1000, t.bucketMs));
  const rows = useMemo(() => rowsInDomain(aligned.rows, domain), [aligned.rows, domain]);
  const all = [...aligned.phases, ...aligned.series];

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
      {aligned.phases.length > 0 && (
        <div className="panel timeline-panel">
          <div className="panel-head">
            <div>
              <strong>Lifecycle: cumulative count per phase</strong>
              <p className="panel-sub">
                Entities that reached each phase, over time since the run started (
                {formatOffset(t.bucketMs)} buckets)
              </p>
            </div>
          </div>
          <TimelineChart
            rows={rows}
            lines={aligned.phases}
            all={all}
            domain={domain}
            height={280}
            unit={null}
            legend
            testId="timeline-phases-chart"
            {...drag}
            {...hover('phases')}
          />
        </div>
      )}
      {t.series.length > 0 && (
        <div className="panel timeline-panel">
          <div className="panel-head">
            <div>
              <strong>Metric series</strong>
              <p className="panel-sub">On the same time axis; pick the series to draw</p>
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
                    setPicked((p) =>
                      e.target.checked ? [...p, s.id] : p.filter((id) => id !== s.id),
                    )
                  }
                />{' '}
                {s.name}
                <span className="muted">
                  {' '}
                  ({s.source}
                  {s.unit ? `, ${s.unit}` : ''})
                </span>
              </label>
            ))}
          </fieldset>
          {aligned.series.map((l) => (
            <div key={l.key} className="timeline-series">
              <div className="timeline-series-name" style={{ color: l.color }}>
                {l.label}
              </div>
              <TimelineChart
                rows={rows}
                lines={[l]}
                all={all}
                domain={domain}
                height={150}
                unit={l.unit}
                testId="timeline-series-chart"
                {...drag}
                {...hover(l.key)}
              />
            </div>
          ))}
          {aligned.series.length === 0 && <p className="state">No series picked.</p>}
          {seriesStats}
        </div>
      )}
      {t.phases.length > 0 && <PhaseTable t={t} />}
    </>
  );
}
