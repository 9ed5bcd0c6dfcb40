// A two-way linear/log switch for a chart's time axis.
import type { HistogramScale } from '@meshbench/schema';

export function ScaleToggle({
  value,
  onChange,
  name,
}: {
  value: HistogramScale;
  onChange: (scale: HistogramScale) => void;
  name: string;
}) {
  return (
    <fieldset className="segmented" aria-label={`${name} time axis`}>
      {(['linear', 'log'] as const).map((scale) => (
        <button
          key={scale}
          type="button"
          aria-pressed={value === scale}
          data-testid={`${name}-scale-${scale}`}
          onClick={() => onChange(scale)}
        >
          {scale === 'linear' ? 'Linear' : 'Log'}
        </button>
      ))}
    </fieldset>
  );
}
