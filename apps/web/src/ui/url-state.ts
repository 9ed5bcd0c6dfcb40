// View state kept in the page's URL, so that a copied link shows what its sender saw: a
// choice among a few values (`?convergenceScale=linear`), a list (`?series=a&series=b`) and a
// time range (`?zoom=1000-5000`). Defaults are left out, so a plain link stays plain; what is
// absent or malformed reads as the default. Changes replace the history entry in place.
import { useCallback, useMemo } from 'react';
import { useSearchParams } from 'react-router';

/** The URL with `key` set to `value` (one value, or several), or removed when null. */
export function withParam(
  search: URLSearchParams,
  key: string,
  value: string | readonly string[] | null,
): URLSearchParams {
  const next = new URLSearchParams(search);
  next.delete(key);
  if (value === null) return next;
  if (typeof value === 'string') next.set(key, value);
  else if (value.length === 0) next.set(key, '');
  else for (const v of value) next.append(key, v);
  return next;
}

/** `?key=` when it is one of `values`, else `fallback`. */
export function readChoice<T extends string>(
  search: URLSearchParams,
  key: string,
  values: readonly T[],
  fallback: T,
): T {
  const v = search.get(key);
  return values.includes(v as T) ? (v as T) : fallback;
}

/**
 * `?key=a&key=b` as a list; `?key=` (one empty value) is the empty list; null when absent
 * (the caller's default).
 */
export function readList(search: URLSearchParams, key: string): string[] | null {
  const all = search.getAll(key);
  if (all.length === 0) return null;
  return all.filter((v) => v !== '');
}

/** `?key=1000-5000` (whole ms, from < to) as a range; null when absent or malformed. */
export function readRange(
  search: URLSearchParams,
  key: string,
): { from: number; to: number } | null {
  const m = /^(\d{1,15})-(\d{1,15})$/.exec(search.get(key) ?? '');
  if (!m) return null;
  const from = Number(m[1]);
  const to = Number(m[2]);
  return from < to ? { from, to } : null;
}

/** A range as `?key=` writes it: whole ms, the lower first. */
export function rangeText(range: { from: number; to: number }): string {
  const lo = Math.round(Math.min(range.from, range.to));
  const hi = Math.round(Math.max(range.from, range.to));
  return `${Math.max(0, lo)}-${Math.max(0, hi)}`;
}

/** One URL parameter, read and replaced in place (other parameters kept). */
export function useUrlParam<T>(
  read: (search: URLSearchParams) => T,
  write: (search: URLSearchParams, value: T) => URLSearchParams,
): [T, (value: T) => void] {
  const [search, setSearch] = useSearchParams();
  const value = useMemo(() => read(search), [read, search]);
  const set = useCallback(
    (next: T) => setSearch((s) => write(s, next), { replace: true }),
    [setSearch, write],
  );
  return [value, set];
}

/** A choice among `values` in `?key=`; the fallback is left out of the URL. */
export function useUrlChoice<T extends string>(
  key: string,
  values: readonly T[],
  fallback: T,
): [T, (value: T) => void] {
  const read = useCallback(
    (s: URLSearchParams) => readChoice(s, key, values, fallback),
    [key, values, fallback],
  );
  const write = useCallback(
    (s: URLSearchParams, v: T) => withParam(s, key, v === fallback ? null : v),
    [key, fallback],
  );
  return useUrlParam(read, write);
}

const SCALES = ['linear', 'log'] as const;

/**
 * A chart's time-axis scale, kept as `?<name>Scale=` ("compare-histogram" ->
 * `?compareHistogramScale=`), like the run page's `?heatmapScale=`. Charts of one name on a
 * page share it.
 */
export function scaleKey(name: string): string {
  return `${name.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase())}Scale`;
}

export function useUrlScale(
  name: string,
  fallback: (typeof SCALES)[number],
): [(typeof SCALES)[number], (scale: (typeof SCALES)[number]) => void] {
  return useUrlChoice(scaleKey(name), SCALES, fallback);
}
