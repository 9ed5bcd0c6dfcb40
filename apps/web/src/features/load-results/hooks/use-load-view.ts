// The data-plane view state of the page's URL (see load-view.ts), read and replaced in place.
import { useCallback, useMemo } from 'react';
import { useSearchParams } from 'react-router';
import { type LoadView, loadViewFromSearch, loadViewToSearch } from './load-view.ts';

export function useLoadView(): [LoadView, (patch: Partial<LoadView>) => void] {
  const [search, setSearch] = useSearchParams();
  const view = useMemo(() => loadViewFromSearch(search), [search]);
  const update = useCallback(
    (patch: Partial<LoadView>) => setSearch((s) => loadViewToSearch(s, patch), { replace: true }),
    [setSearch],
  );
  return [view, update];
}
