// Tail-cause composition side by side: for each run, the share of its tail (slow proxies
// plus those that never converged) that each cause explains, as stacked bars.
import { NEVER_CONVERGED_CAUSE, type Tail, UNEXPLAINED_CAUSE } from '@meshbench/schema';
import { causeColor } from './tail.ts';

export interface TailCauseKey {
  cause: string;
  color: string;
}

export interface TailShareRow {
  key: string;
  /** Proxies slower than the threshold, and expected proxies that never applied the change. */
  tailCount: number;
  neverConverged: number;
  total: number;
  /** Per cause: share of the total in percent (0-100), and the count. */
  percent: Record<string, number>;
  count: Record<string, number>;
}

export interface PreparedTailShares {
  /** Largest overall first; "unexplained" and "never-converged" always last. */
  causes: TailCauseKey[];
  /** One per run given; null for a run without a tail answer. */
  rows: (TailShareRow | null)[];
}

const LAST = [UNEXPLAINED_CAUSE, NEVER_CONVERGED_CAUSE];

export function prepareTailShares(
  tails: {
    key: string;
    tail:
      | (Pick<Tail, 'tailCount' | 'neverConverged'> & {
          causes: Pick<Tail['causes'][number], 'cause' | 'count' | 'share'>[];
        })
      | null;
  }[],
): PreparedTailShares {
  const totals = new Map<string, number>();
  for (const { tail } of tails) {
    for (const c of tail?.causes ?? []) totals.set(c.cause, (totals.get(c.cause) ?? 0) + c.count);
  }
  const names = [...totals.keys()].sort((a, b) => {
    const la = LAST.indexOf(a);
    const lb = LAST.indexOf(b);
    if (la !== lb) return la - lb; // -1 (ordinary) before 0 (unexplained) before 1 (never)
    return (totals.get(b) ?? 0) - (totals.get(a) ?? 0) || a.localeCompare(b);
  });
  // The same colour per cause as the run page's tail panel.
  const causes = names.map((cause) => ({ cause, color: causeColor(cause) }));
  const rows = tails.map(({ key, tail }) => {
    if (!tail) return null;
    const total = tail.tailCount + tail.neverConverged;
    const percent: Record<string, number> = {};
    const count: Record<string, number> = {};
    for (const { cause } of causes) {
      const n = tail.causes.find((c) => c.cause === cause)?.count ?? 0;
      count[cause] = n;
      percent[cause] = total > 0 ? (n / total) * 100 : 0;
    }
    return {
      key,
      tailCount: tail.tailCount,
      neverConverged: tail.neverConverged,
      total,
      percent,
      count,
    };
  });
  return { causes, rows };
}
