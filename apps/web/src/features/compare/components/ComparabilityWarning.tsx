// Why the compared runs cannot be held against each other (the check a gate's "not
// comparable" verdict makes), above the comparison: its numbers are shown, not trusted.
import type { Comparability } from '@meshbench/schema';
import { comparabilityNotes } from '../prepare/comparability.ts';

export function ComparabilityWarning({
  comparability,
}: {
  comparability: Comparability | null | undefined;
}) {
  const notes = comparabilityNotes(comparability);
  if (notes.length === 0) return null;
  return (
    <div className="compare-warning" role="note" data-testid="comparability-warning">
      <strong>Not comparable: a gate would not test these runs against each other.</strong>
      <ul>
        {notes.map((n) => (
          <li key={`${n.kind} ${n.reason}`} data-kind={n.kind}>
            <strong>{n.title}</strong>: {n.reason}
          </li>
        ))}
      </ul>
    </div>
  );
}
