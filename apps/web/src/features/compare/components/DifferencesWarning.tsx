// A comparison of unlike runs is allowed, and says plainly what is unlike.
import type { Difference } from '../prepare/differences.ts';

export function DifferencesWarning({ differences }: { differences: Difference[] }) {
  if (differences.length === 0) return null;
  return (
    <div className="compare-warning" role="note" data-testid="compare-warning">
      <strong>These runs differ in more than the mesh:</strong>
      <ul>
        {differences.map((d) => (
          <li key={d.field} data-field={d.field}>
            {d.text}
          </li>
        ))}
      </ul>
    </div>
  );
}
