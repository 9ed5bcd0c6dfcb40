// The API's comparability check as the compare page and a report show it: each reason the
// runs cannot be compared under a heading that says what kind of reason it is.
import type { Comparability, ComparabilityKind } from '@meshbench/schema';

export interface ComparabilityNote {
  kind: ComparabilityKind;
  title: string;
  /** The API's reason, with its numbers. */
  reason: string;
}

const TITLES: Record<ComparabilityKind, string> = {
  topology: 'Different topology',
  'mesh-version': 'Different mesh version',
  'rps-shortfall': 'Load short of its target rate',
  'generator-saturated': 'Load generator saturated',
  'percentile-exactness': 'Percentiles of different exactness',
};

/** Nothing to say (still loading, one run, comparable): no notes. */
export function comparabilityNotes(c: Comparability | null | undefined): ComparabilityNote[] {
  if (!c) return [];
  return c.warnings.map((w) => ({ kind: w.kind, title: TITLES[w.kind], reason: w.reason }));
}
