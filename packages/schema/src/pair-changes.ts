// Which change of each run is compared with which: the same change id where every run has
// it; otherwise (each runner named its change its own way) the first change of each run. Shared:
// the compare read (GET /compare) answers the summaries of these pairs, the pages draw them.

export interface ChangePair<T> {
  /** The change id, or the ids of the firsts joined with " / " when paired by position. */
  title: string;
  matchedBy: 'id' | 'position';
  /** One per run, the baseline's first; null for a run without a change to pair. */
  changes: (T | null)[];
}

export function pairChanges<T extends { id: string }>(perRun: T[][]): ChangePair<T>[] {
  const baseline = perRun[0] ?? [];
  const common = baseline.filter((c) => perRun.every((list) => list.some((x) => x.id === c.id)));
  if (common.length > 0) {
    return common.map((c) => ({
      title: c.id,
      matchedBy: 'id',
      changes: perRun.map((list) => list.find((x) => x.id === c.id) ?? null),
    }));
  }
  const firsts = perRun.map((list) => list[0] ?? null);
  const present = firsts.filter((c): c is T => c !== null);
  if (present.length === 0) return [];
  const ids = [...new Set(present.map((c) => c.id))];
  return [
    {
      title: ids.join(' / '),
      matchedBy: ids.length === 1 ? 'id' : 'position',
      changes: firsts,
    },
  ];
}
