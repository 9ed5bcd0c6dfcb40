// Which stage of a change the numbers are of, where the change was observed at several
// (received, applied, serving...). The choice lives in the page's URL (`?stage=`).
import type { StageCount } from '@meshbench/schema';
import { formatCount } from '../../../charts/prepare/format.ts';

export function StageSelector({
  stages,
  value,
  onChange,
  name,
}: {
  stages: readonly StageCount[];
  /** The stage shown (the summary's `stage`). */
  value: string;
  onChange: (stage: string) => void;
  /** Unique on the page: the change's id. */
  name: string;
}) {
  if (stages.length < 2) return null;
  return (
    <fieldset className="segmented" aria-label={`${name} stage`} data-testid="stage-selector">
      {stages.map((s) => (
        <button
          key={s.stage}
          type="button"
          aria-pressed={value === s.stage}
          data-testid={`stage-${s.stage}`}
          title={`${formatCount(s.count)} proxies, ${formatCount(s.observations)} observations`}
          onClick={() => onChange(s.stage)}
        >
          {s.stage} ({formatCount(s.count)})
        </button>
      ))}
    </fieldset>
  );
}
