// The runs list's state lives in the page URL (a filtered list is a link; back and forward
// work): filters, sort and page, read from and written to the query string, and turned into
// the API's query.
import { parseLabelFilter, type RunSort, runSort, runStatus } from '@meshbench/schema';
import type { RunListQuery } from '../../../api/urls.ts';
import { formatCount } from '../../../charts/prepare/format.ts';

export const PAGE_SIZE = 50;
export const DEFAULT_SORT: RunSort = '-startedAt';

/** The text filters, in the order they appear in the URL and on the page. */
export const TEXT_FILTERS = ['mesh', 'version', 'benchmark', 'scenario', 'platform'] as const;
export type TextFilter = (typeof TEXT_FILTERS)[number];

export interface RunListFilters {
  mesh?: string;
  version?: string;
  benchmark?: string;
  scenario?: string;
  platform?: string;
  status?: string;
  /** "k=v" as the list shows labels, all must match. */
  labels: string[];
  /** Days, YYYY-MM-DD, both included. */
  from?: string;
  to?: string;
  /** Free text: benchmark, scenario, mesh, platform and labels. */
  q?: string;
}

export interface RunListState {
  filters: RunListFilters;
  /** What was wrong with the URL's labels that were not k=v or k:v (left out of the query). */
  labelErrors?: string[];
  sort: RunSort;
  /** 1-based. */
  page: number;
}

const DAY = /^\d{4}-\d{2}-\d{2}$/;
const isDay = (s: string) => DAY.test(s) && !Number.isNaN(Date.parse(`${s}T00:00:00Z`));

/**
 * A label filter as typed ("k=v" or "k:v") in the form the list shows and the URL keeps,
 * "k=v"; or what is wrong with it.
 */
export function labelFilter(text: string): { label: string } | { error: string } {
  const parsed = parseLabelFilter(text);
  return 'error' in parsed ? parsed : { label: `${parsed.key}=${parsed.value}` };
}

/**
 * Whatever the URL holds, a valid state: unknown values are dropped, not errors, except a
 * label in a wrong form, which the page says is left out.
 */
export function parseRunListParams(params: URLSearchParams): RunListState {
  const filters: RunListFilters = { labels: [] };
  for (const key of TEXT_FILTERS) {
    const v = params.get(key)?.trim();
    if (v) filters[key] = v;
  }
  const status = runStatus.safeParse(params.get('status'));
  if (status.success) filters.status = status.data;
  const labelErrors: string[] = [];
  const labels = new Set<string>();
  for (const raw of params.getAll('label')) {
    const parsed = labelFilter(raw);
    if ('error' in parsed) labelErrors.push(parsed.error);
    else labels.add(parsed.label);
  }
  filters.labels = [...labels];
  const from = params.get('from');
  if (from && isDay(from)) filters.from = from;
  const to = params.get('to');
  if (to && isDay(to)) filters.to = to;
  const q = params.get('q')?.trim();
  if (q) filters.q = q;
  const sort = runSort.safeParse(params.get('sort'));
  const page = Number(params.get('page'));
  return {
    filters,
    ...(labelErrors.length > 0 ? { labelErrors } : {}),
    sort: sort.success ? sort.data : DEFAULT_SORT,
    page: Number.isInteger(page) && page > 1 ? page : 1,
  };
}

/** The query string for a state: only what differs from the defaults, in a stable order. */
export function runListSearch(state: RunListState): URLSearchParams {
  const out = new URLSearchParams();
  const f = state.filters;
  for (const key of TEXT_FILTERS) if (f[key]) out.set(key, f[key] as string);
  if (f.status) out.set('status', f.status);
  for (const label of f.labels) out.append('label', label);
  if (f.from) out.set('from', f.from);
  if (f.to) out.set('to', f.to);
  if (f.q) out.set('q', f.q);
  if (state.sort !== DEFAULT_SORT) out.set('sort', state.sort);
  if (state.page > 1) out.set('page', String(state.page));
  return out;
}

/** The day after a YYYY-MM-DD day, as RFC 3339 midnight UTC: "to" includes its whole day. */
function dayAfter(day: string): string {
  const t = Date.parse(`${day}T00:00:00Z`) + 24 * 3600_000;
  return new Date(t).toISOString().replace('.000Z', 'Z');
}

export function runListApiQuery(state: RunListState): RunListQuery {
  const f = state.filters;
  return {
    mesh: f.mesh,
    version: f.version,
    benchmark: f.benchmark,
    scenario: f.scenario,
    platform: f.platform,
    status: f.status,
    labels: f.labels,
    from: f.from ? `${f.from}T00:00:00Z` : undefined,
    to: f.to ? dayAfter(f.to) : undefined,
    q: f.q,
    sort: state.sort,
    limit: PAGE_SIZE,
    offset: (state.page - 1) * PAGE_SIZE,
  };
}

export type SortColumn = 'startedAt' | 'mesh' | 'benchmark' | 'scenario' | 'status';

/** A click on a column: the other direction if it is the sorted one, else its natural one. */
export function nextSort(current: RunSort, column: SortColumn): RunSort {
  if (current === column) return `-${column}` as RunSort;
  if (current === `-${column}`) return column;
  // Newest first is what one wants of times; names read A to Z.
  return column === 'startedAt' ? '-startedAt' : column;
}

export function sortDirection(
  current: RunSort,
  column: SortColumn,
): 'ascending' | 'descending' | 'none' {
  if (current === column) return 'ascending';
  if (current === `-${column}`) return 'descending';
  return 'none';
}

/** "1–50 of 1,234"; "0 of 0" for an empty page. */
export function pageRange(page: number, shown: number, total: number): string {
  if (shown === 0) return `0 of ${formatCount(total)}`;
  const first = (page - 1) * PAGE_SIZE + 1;
  return `${formatCount(first)}–${formatCount(first + shown - 1)} of ${formatCount(total)}`;
}

export function pageCount(total: number): number {
  return Math.max(1, Math.ceil(total / PAGE_SIZE));
}
