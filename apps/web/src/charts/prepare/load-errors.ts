// The errors panel: each point's error rate (failed requests as a share of the requests sent)
// along the slice's axis, with its counts for the tooltip and the table, and its codes.
import {
  type LoadResultsRun,
  linesBySlice,
  type PreparedLines,
  pointSeriesKey,
  pointsInSlice,
  type RatePoint,
  type SeriesRow,
  type SliceArg,
  toSlice,
  valueAxis,
} from './load-results.ts';

export interface ErrorRow {
  run: string;
  mode: string;
  connections: number;
  /** Where the point lies on the chart's x axis (its connections or its rate). */
  x: number;
  requests: number | null;
  errors: number;
  /** errors / requests (may pass 1: runners count requests that never got a response). */
  fraction: number | null;
  byCode: { code: string; count: number }[];
}

export interface PreparedErrors {
  /** Error rate in % of requests, a line per (run, mode); the counts under countKeys. */
  lines: PreparedLines | null;
  table: ErrorRow[];
  total: number;
  /** Points that count their errors but not their requests: no rate to draw. */
  withoutRequests: number;
}

/** Where a row keeps a series' counts, for the tooltip: "3 of 300 requests". */
export const countKeys = (key: string) => ({
  errors: `${key}:errors`,
  requests: `${key}:requests`,
});

export function errorCodes(byCode: Record<string, number>): { code: string; count: number }[] {
  return Object.entries(byCode)
    .map(([code, count]) => ({ code, count }))
    .sort((a, b) => b.count - a.count || a.code.localeCompare(b.code));
}

export function prepareErrors(runs: LoadResultsRun[], sliceArg: SliceArg): PreparedErrors {
  const slice = toSlice(sliceArg);
  const { points } = pointsInSlice(runs, slice);
  const counted = points.filter((p) => p.result.errors !== null);
  const table: ErrorRow[] = counted.map(({ run, result: r, connections, x }) => ({
    run: run.label,
    mode: r.mode,
    connections,
    x,
    requests: r.requests,
    errors: r.errors as number,
    fraction: r.requests ? (r.errors as number) / r.requests : null,
    byCode: errorCodes(r.errorsByCode),
  }));
  const total = table.reduce((sum, r) => sum + r.errors, 0);
  const values: { point: RatePoint; value: number }[] = [];
  for (const p of counted) {
    const { errors, requests } = p.result;
    if (errors === null || !requests) continue;
    values.push({ point: p, value: (errors / requests) * 100 });
  }
  const lines = linesBySlice(
    runs,
    values,
    valueAxis(
      values.map((v) => v.value),
      4,
    ),
    slice.axis,
  );
  if (lines) {
    const byX = new Map<number, SeriesRow>(lines.rows.map((row) => [row.x, row]));
    for (const { point } of values) {
      const row = byX.get(point.x) as SeriesRow;
      const keys = countKeys(pointSeriesKey(point));
      row[keys.errors] = point.result.errors;
      row[keys.requests] = point.result.requests;
    }
  }
  return { lines, table, total, withoutRequests: counted.length - values.length };
}
