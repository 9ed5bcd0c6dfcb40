// Which line is which: each series' colour and dash beside its label.
import type { SeriesSpec } from '../../../charts/prepare/load-results.ts';

export function SeriesKey({ series }: { series: SeriesSpec[] }) {
  return (
    <ul className="series-key" data-testid="series-key">
      {series.map((s) => (
        <li key={s.key} data-series={s.label}>
          <svg width="24" height="10" aria-hidden="true">
            <line
              x1="1"
              y1="5"
              x2="23"
              y2="5"
              stroke={s.color}
              strokeWidth="2.5"
              strokeDasharray={s.dash || undefined}
            />
          </svg>
          {s.label}
        </li>
      ))}
    </ul>
  );
}
