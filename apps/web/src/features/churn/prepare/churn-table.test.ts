import type { ChurnChangeRow } from '@meshbench/schema';
import { describe, expect, it } from 'vitest';
import {
  churnSortText,
  DEFAULT_CHURN_SORT,
  nextSort,
  parseChurnSort,
  sortChurnRows,
} from './churn-table.ts';

const row = (id: string, p99: number | null, count: number): ChurnChangeRow => ({
  id,
  kind: 'endpoint',
  target: 't',
  action: 'add',
  at: '2026-02-01T10:00:00.000000Z',
  expected: 10,
  count,
  missing: 10 - count,
  minMs: p99,
  maxMs: p99,
  percentiles: p99 === null ? [] : [{ p: 99, ms: p99, exact: true, method: 'raw' }],
  withinCount: count,
  withinFraction: count / 10,
});

const rows = [row('c1', 300, 10), row('c2', null, 0), row('c3', 900, 9), row('c4', 300, 10)];
const ids = (rs: ChurnChangeRow[]) => rs.map((r) => r.id);

describe('sortChurnRows', () => {
  it('keeps change time order by default', () => {
    expect(ids(sortChurnRows(rows, DEFAULT_CHURN_SORT))).toEqual(['c1', 'c2', 'c3', 'c4']);
    expect(ids(sortChurnRows(rows, { key: 'at', descending: true }))).toEqual([
      'c4',
      'c3',
      'c2',
      'c1',
    ]);
  });

  it('sorts by a percentile, ties in change order, changes without one last', () => {
    expect(ids(sortChurnRows(rows, { key: 'p99', descending: true }))).toEqual([
      'c3',
      'c1',
      'c4',
      'c2',
    ]);
    expect(ids(sortChurnRows(rows, { key: 'p99', descending: false }))).toEqual([
      'c1',
      'c4',
      'c3',
      'c2',
    ]);
  });

  it('sorts by count', () => {
    expect(ids(sortChurnRows(rows, { key: 'count', descending: false }))).toEqual([
      'c2',
      'c3',
      'c1',
      'c4',
    ]);
  });
});

describe('nextSort', () => {
  it('opens a time column slowest first, and flips on a second click', () => {
    const first = nextSort(DEFAULT_CHURN_SORT, 'p99');
    expect(first).toEqual({ key: 'p99', descending: true });
    expect(nextSort(first, 'p99')).toEqual({ key: 'p99', descending: false });
    expect(nextSort(first, 'within')).toEqual({ key: 'within', descending: false });
  });
});

describe('churn sort in the URL', () => {
  it('reads ?churnSort= as written, descending with a leading minus', () => {
    expect(parseChurnSort('-p99')).toEqual({ key: 'p99', descending: true });
    expect(parseChurnSort('within')).toEqual({ key: 'within', descending: false });
    expect(parseChurnSort('p99.9')).toEqual({ key: 'p99.9', descending: false });
    for (const bad of [null, '', '-', 'size', 'p', '--max'])
      expect(parseChurnSort(bad)).toEqual({ key: 'at', descending: false });
  });
  it('leaves the default out and writes the rest back as read', () => {
    expect(churnSortText({ key: 'at', descending: false })).toBeNull();
    expect(churnSortText({ key: 'at', descending: true })).toBe('-at');
    expect(churnSortText({ key: 'max', descending: true })).toBe('-max');
  });
});
