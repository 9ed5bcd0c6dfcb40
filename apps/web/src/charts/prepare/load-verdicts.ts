// What a run's load results say beyond their numbers, as lines the data-plane section lists:
// the runner's own verdict on its thresholds (k6), and points no request was sent for (whose
// latencies are empty, not 0 ms). Pure, so the page and a report list the same.
import type { StoredLoadResult } from '@meshbench/schema';

export interface ThresholdLine {
  metric: string;
  threshold: string;
  ok: boolean;
}

export interface LoadVerdict {
  /** Which point: its scenario or label, mode and format ("k6 · both"). */
  point: string;
  thresholds: ThresholdLine[];
  /** How many of its thresholds were crossed. */
  crossed: number;
  /** The runner sent no request at this point. */
  nothingSent: boolean;
}

const pointName = (r: StoredLoadResult) =>
  [r.labels.scenario ?? r.labels.label, r.mode === 'unspecified' ? null : r.mode, r.format]
    .filter((x): x is string => Boolean(x))
    .join(' · ');

/** The stored points (not merged rows) that have thresholds or sent nothing, in order. */
export function loadVerdicts(results: StoredLoadResult[]): LoadVerdict[] {
  return results
    .filter((r) => r.id !== null && ((r.thresholds?.length ?? 0) > 0 || r.requests === 0))
    .map((r) => {
      const thresholds = (r.thresholds ?? []).map((t) => ({ ...t }));
      return {
        point: pointName(r),
        thresholds,
        crossed: thresholds.filter((t) => !t.ok).length,
        nothingSent: r.requests === 0,
      };
    });
}
