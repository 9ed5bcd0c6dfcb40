// Which change sections the run page shows: every change of a one-change run; of a run with
// more (a churn test, shown whole above them), the one `?change=` names, else the first.
import type { ChangeList } from '@meshbench/schema';

export function shownChanges(changes: ChangeList, wanted: string | null): ChangeList {
  if (changes.length < 2) return changes;
  const chosen = changes.find((c) => c.id === wanted) ?? changes[0];
  return chosen ? [chosen] : [];
}
