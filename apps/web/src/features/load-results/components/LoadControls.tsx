// The data-plane controls: the axis the charts run along (one click), the group drawn (a rate
// along connections, a connection count along the rate) and the percentile drawn.
import type { LoadAxis, LoadSlice } from '../../../charts/prepare/load-results.ts';
import type { LoadView } from '../hooks/load-view.ts';

const AXIS_NAMES: Record<LoadAxis, string> = { connections: 'vs connections', rps: 'vs RPS' };

export function LoadControls({
  view,
  axis,
  slice,
  groups,
  onChange,
}: {
  view: LoadView;
  /** The axis drawn (the view's, or the default when it names none). */
  axis: LoadAxis;
  slice: LoadSlice;
  groups: { key: string; label: string; points: number }[];
  onChange: (patch: Partial<LoadView>) => void;
}) {
  return (
    <div className="load-controls">
      <fieldset className="segmented" aria-label="x axis" data-testid="load-axis">
        {(['connections', 'rps'] as const).map((a) => (
          <button
            key={a}
            type="button"
            aria-pressed={axis === a}
            data-testid={`load-axis-${a}`}
            onClick={() => onChange({ axis: a })}
          >
            {AXIS_NAMES[a]}
          </button>
        ))}
      </fieldset>
      {groups.length > 1 && (
        <label>
          <span>{axis === 'connections' ? 'Rate' : 'Connections'}</span>
          <select
            value={slice.key ?? ''}
            data-testid="load-slice"
            onChange={(e) =>
              onChange(
                axis === 'connections'
                  ? { rate: e.currentTarget.value }
                  : { connections: e.currentTarget.value },
              )
            }
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
        {view.percentiles.map((p) => (
          <button
            key={p}
            type="button"
            aria-pressed={view.percentile === p}
            data-testid={`load-percentile-p${String(p).replace('.', '-')}`}
            onClick={() => onChange({ percentile: p })}
          >
            P{p}
          </button>
        ))}
      </fieldset>
    </div>
  );
}
