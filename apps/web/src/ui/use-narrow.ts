// Whether the window is narrow (a phone held sideways, half a laptop screen, an A4 page):
// the width below which the style sheet's narrow rules apply too (styles.css, 760 px).
import { useSyncExternalStore } from 'react';

export const NARROW_QUERY = '(max-width: 760px)';

function subscribe(onChange: () => void): () => void {
  if (typeof window === 'undefined' || !window.matchMedia) return () => {};
  const query = window.matchMedia(NARROW_QUERY);
  query.addEventListener('change', onChange);
  return () => query.removeEventListener('change', onChange);
}

const isNarrow = () =>
  typeof window !== 'undefined' && !!window.matchMedia && window.matchMedia(NARROW_QUERY).matches;

/** True while the window is at most 760 px wide; follows it as it is resized. */
export function useNarrow(): boolean {
  return useSyncExternalStore(subscribe, isNarrow, () => false);
}
