// A level series' (gauge, up-down counter) peak over the run and its steady value after
// the scale-up settled: the numbers a scale-up benchmark quotes for control-plane CPU and
// memory ("up to about 43 % while scaling, 5-10 % after").

/** A level row as normalize() gives it: its time, value and the interval's max. */
export interface LevelRow {
  tMs: number;
  value: number;
  max: number | null;
}

/**
 * peak: the largest value any row held (its interval's max when kept, so a spike between
 * flushes counts); steady: the mean of the rows' values at or after `steadyFromMs` (the
 * last join), null without that time or without rows after it. Rows whose value is not a
 * number (an unresolved delta) are skipped.
 */
export function peakAndSteady(
  rows: readonly LevelRow[],
  steadyFromMs: number | null,
): { peak: number | null; steady: number | null } {
  let peak = Number.NEGATIVE_INFINITY;
  let sum = 0;
  let n = 0;
  for (const r of rows) {
    if (!Number.isFinite(r.value)) continue;
    const hi = r.max !== null && Number.isFinite(r.max) ? Math.max(r.max, r.value) : r.value;
    if (hi > peak) peak = hi;
    if (steadyFromMs !== null && r.tMs >= steadyFromMs) {
      sum += r.value;
      n++;
    }
  }
  return { peak: Number.isFinite(peak) ? peak : null, steady: n > 0 ? sum / n : null };
}
