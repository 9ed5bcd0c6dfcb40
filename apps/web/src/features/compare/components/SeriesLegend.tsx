// Which line is which run: its colour and dash, its label, and a short note.
import type { ComparedRun } from '../prepare/compared-runs.ts';

export function SeriesLegend({
  runs,
  note,
}: {
  runs: ComparedRun[];
  note?: (run: ComparedRun) => string;
}) {
  return (
    <ul className="series-legend">
      {runs.map((r) => (
        <li key={r.key}>
          <svg width="22" height="8" aria-hidden="true">
            <line
              x1="0"
              y1="4"
              x2="22"
              y2="4"
              stroke={r.style.color}
              strokeWidth="3"
              strokeDasharray={r.style.dash}
            />
          </svg>
          {r.label}
          {note && <span className="muted"> · {note(r)}</span>}
        </li>
      ))}
    </ul>
  );
}
