// What a person may change about the data-plane views, kept in the page's URL so that a link
// opens the same charts: the axis (`?axis=rps`; connections when absent or malformed), the
// rate drawn along connections (`?rate=target:1000`), the connection count drawn along the
// rate (`?connections=16`), the percentile drawn (`?percentile=99`), the percentiles asked
// for and offered (`?percentiles=50,90,99,99.9`, shared with the propagation view) and the
// tail band's limit (`?limit=5`: P99 must stay under limit x P50).
import { percentileList } from '@meshbench/schema';
import {
  connectionsKey,
  DEFAULT_TAIL_BAND_LIMIT,
  LOAD_AXES,
  LOAD_PERCENTILES,
  type LoadAxis,
} from '../../../charts/prepare/load-results.ts';

export interface LoadView {
  /** null: the axis the results suit best (see defaultAxis). */
  axis: LoadAxis | null;
  /** A rate group's key, for the connections axis; null: the fullest rate. */
  rate: string | null;
  /** A connections group's key, for the rate axis; null: the fullest count. */
  connections: string | null;
  /** The percentile drawn; one of `percentiles`. */
  percentile: number;
  /** The percentiles offered and shown in the tables, ascending. */
  percentiles: readonly number[];
  /** P99 must stay under limit x P50. */
  limit: number;
}

export const DEFAULT_LOAD_PERCENTILES: readonly number[] = LOAD_PERCENTILES;
/** The Istio guide leads with P90. */
export const DEFAULT_LOAD_PERCENTILE = 90;

/** More buttons than this stop reading as a choice. */
const MAX_PERCENTILES = 8;

/** "50,99.9" -> [50, 99.9], as the API reads `?percentiles=`; null when it would refuse it. */
function parsePercentiles(text: string | null): number[] | null {
  if (text === null) return null;
  const parsed = percentileList.safeParse(text.replace(/\s+/g, ''));
  if (!parsed.success) return null;
  const ps = [...new Set(parsed.data)].sort((a, b) => a - b);
  return ps.length <= MAX_PERCENTILES ? ps : null;
}

const isAxis = (v: string | null): v is LoadAxis => LOAD_AXES.includes(v as LoadAxis);

function positive(text: string | null): number | null {
  if (text === null || text.trim() === '') return null;
  const n = Number(text);
  return Number.isFinite(n) && n > 0 ? n : null;
}

/** The view a URL holds; what is absent or malformed falls back to the default. */
export function loadViewFromSearch(search: URLSearchParams): LoadView {
  const percentiles = parsePercentiles(search.get('percentiles')) ?? DEFAULT_LOAD_PERCENTILES;
  const asked = positive(search.get('percentile'));
  const percentile =
    asked !== null && percentiles.includes(asked)
      ? asked
      : percentiles.includes(DEFAULT_LOAD_PERCENTILE)
        ? DEFAULT_LOAD_PERCENTILE
        : (percentiles[percentiles.length - 1] as number);
  const axis = search.get('axis');
  const connections = search.get('connections');
  const count = connections === 'none' ? null : positive(connections);
  return {
    axis: isAxis(axis) ? axis : null,
    rate: search.get('rate') || null,
    connections:
      connections === 'none'
        ? connectionsKey(null)
        : count !== null && Number.isInteger(count)
          ? connectionsKey(count)
          : null,
    percentile,
    percentiles,
    limit: positive(search.get('limit')) ?? DEFAULT_TAIL_BAND_LIMIT,
  };
}

const sameList = (a: readonly number[], b: readonly number[]) =>
  a.length === b.length && a.every((x, i) => x === b[i]);

/** The URL with `patch` applied; defaults are left out, other parameters kept. */
export function loadViewToSearch(
  search: URLSearchParams,
  patch: Partial<LoadView>,
): URLSearchParams {
  const next = new URLSearchParams(search);
  const set = (name: string, value: string | null) => {
    if (value === null) next.delete(name);
    else next.set(name, value);
  };
  if ('axis' in patch) set('axis', patch.axis ?? null);
  if ('rate' in patch) set('rate', patch.rate ?? null);
  if ('connections' in patch) {
    const key = patch.connections ?? null;
    set('connections', key === null ? null : key.replace(/^connections:/, ''));
  }
  if (patch.percentile !== undefined) set('percentile', String(patch.percentile));
  if (patch.percentiles !== undefined) {
    set(
      'percentiles',
      sameList(patch.percentiles, DEFAULT_LOAD_PERCENTILES) ? null : patch.percentiles.join(','),
    );
  }
  if (patch.limit !== undefined) {
    set('limit', patch.limit === DEFAULT_TAIL_BAND_LIMIT ? null : String(patch.limit));
  }
  return next;
}

/**
 * The percentiles to ask the API for: those offered, when they are not the defaults (every
 * source states those, so the API is asked exactly what it was asked before).
 */
export function percentilesQuery(view: Pick<LoadView, 'percentiles'>): string | undefined {
  return sameList(view.percentiles, DEFAULT_LOAD_PERCENTILES)
    ? undefined
    : view.percentiles.join(',');
}
