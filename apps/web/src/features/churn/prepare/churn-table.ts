// The per-change table of a churn run, ordered as asked: by change time (the default, the
// order the API gives), or by a column; changes without a value sort last either way.
import type { ChurnChangeRow } from '@meshbench/schema';

export type ChurnSortKey = 'at' | 'count' | 'within' | 'max' | `p${number}`;
export interface ChurnSort {
  key: ChurnSortKey;
  descending: boolean;
}

export const DEFAULT_CHURN_SORT: ChurnSort = { key: 'at', descending: false };

/** The value a row sorts by; null when the change has none (nothing arrived). */
export function sortValue(row: ChurnChangeRow, key: ChurnSortKey, index: number): number | null {
  if (key === 'at') return index;
  if (key === 'count') return row.count;
  if (key === 'within') return row.withinFraction;
  if (key === 'max') return row.maxMs;
  const p = Number(key.slice(1));
  return row.percentiles.find((x) => x.p === p)?.ms ?? null;
}

/** Rows in the order asked; ties keep change time order. */
export function sortChurnRows(rows: readonly ChurnChangeRow[], sort: ChurnSort): ChurnChangeRow[] {
  const keyed = rows.map((row, i) => ({ row, i, v: sortValue(row, sort.key, i) }));
  keyed.sort((a, b) => {
    if (a.v === null || b.v === null) return a.v === b.v ? a.i - b.i : a.v === null ? 1 : -1;
    const d = sort.descending ? b.v - a.v : a.v - b.v;
    return d !== 0 ? d : a.i - b.i;
  });
  return keyed.map((k) => k.row);
}

/** Clicking a column: sorts by it (slowest first for times), again: the other way round. */
export function nextSort(current: ChurnSort, key: ChurnSortKey): ChurnSort {
  if (current.key === key) return { key, descending: !current.descending };
  return { key, descending: key !== 'at' && key !== 'within' };
}

const SORT_KEY = /^(at|count|within|max|p\d+(\.\d+)?)$/;

/** `?churnSort=` as a sort: `p99` ascending, `-p99` descending; the default when malformed. */
export function parseChurnSort(text: string | null): ChurnSort {
  if (text === null) return DEFAULT_CHURN_SORT;
  const descending = text.startsWith('-');
  const key = descending ? text.slice(1) : text;
  return SORT_KEY.test(key) ? { key: key as ChurnSortKey, descending } : DEFAULT_CHURN_SORT;
}

/** A sort as `?churnSort=` writes it; null for the default (left out of the URL). */
export function churnSortText(sort: ChurnSort): string | null {
  if (sort.key === DEFAULT_CHURN_SORT.key && sort.descending === DEFAULT_CHURN_SORT.descending)
    return null;
  return `${sort.descending ? '-' : ''}${sort.key}`;
}
