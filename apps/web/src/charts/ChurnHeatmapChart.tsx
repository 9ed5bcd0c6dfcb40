// Draws a prepared churn heatmap: changes down, shared bins of time since change across,
// colour = proxies per cell. A CSS grid rather than Recharts, which has no cell-grid chart;
// it decides nothing: rows, colours, titles and ticks come prepared.
import type { CSSProperties } from 'react';
import type { PreparedHeatmap } from './prepare/churn-heatmap.ts';
import { formatCount } from './prepare/format.ts';

export function ChurnHeatmapChart({
  heatmap,
  rowLabel,
  selected,
  onSelect,
}: {
  heatmap: PreparedHeatmap;
  /** What a row is called on the left (the change's target and time). */
  rowLabel: (changeId: string) => string;
  /** The change whose propagation is open below, outlined. */
  selected?: string | undefined;
  onSelect: (changeId: string) => void;
}) {
  const bins = heatmap.columns.length;
  const grid = { '--bins': bins } as CSSProperties;
  return (
    <div className="heatmap" data-testid="churn-heatmap">
      <div className="heatmap-grid" style={grid}>
        {heatmap.rows.map((row) => (
          <div
            key={row.changeId}
            className={`heatmap-row${row.changeId === selected ? ' selected' : ''}`}
            data-change-id={row.changeId}
          >
            <button
              type="button"
              className="heatmap-label"
              onClick={() => onSelect(row.changeId)}
              title={`open ${row.changeId}: ${formatCount(row.total)} proxies`}
              data-testid="heatmap-row-label"
            >
              {rowLabel(row.changeId)}
            </button>
            {row.cells.map((cell) => (
              // The cells repeat the table's numbers for the eye; keyboard and screen readers
              // get the row's button and the table alternative below instead of 800 stops.
              <div
                key={cell.bin}
                className="heatmap-cell"
                style={{ background: cell.color }}
                title={cell.title}
                aria-hidden="true"
                onClick={() => onSelect(row.changeId)}
              />
            ))}
          </div>
        ))}
        <div className="heatmap-axis" aria-hidden="true">
          <span />
          <div className="heatmap-ticks">
            {heatmap.ticks.map((t) => (
              <span key={t.edge} style={{ left: `${(t.edge / Math.max(1, bins)) * 100}%` }}>
                {t.label}
              </span>
            ))}
          </div>
        </div>
      </div>
      <p className="heatmap-axis-label muted">time since the change</p>
      <div className="heatmap-legend" data-testid="heatmap-legend">
        <span className="muted">proxies per cell (log colour scale):</span>
        {heatmap.legend.map((l) => (
          <span key={l.count} className="heatmap-legend-item">
            <span className="heatmap-swatch" style={{ background: l.color }} />
            {formatCount(l.count)}
          </span>
        ))}
      </div>
    </div>
  );
}
