// The errors panel: errors per point at one rate, by code.
import {
  type LoadResultsRun,
  modeSeries,
  type NumberAxis,
  pointsAtRate,
  type SeriesRow,
  type SeriesSpec,
  seriesKey,
  valueAxis,
} from './load-results.ts';

export interface ErrorRow {
  run: string;
  mode: string;
  connections: number;
  requests: number | null;
  errors: number;
  /** errors / requests (may pass 1: runners count requests that never got a response). */
  fraction: number | null;
  byCode: { code: string; count: number }[];
}

export interface PreparedErrors {
  /** Bars: a row per connection count, one bar per (run, mode). */
  bars: { series: SeriesSpec[]; rows: SeriesRow[]; y: NumberAxis } | null;
  table: ErrorRow[];
  total: number;
}

export function errorCodes(byCode: Record<string, number>): { code: string; count: number }[] {
  return Object.entries(byCode)
    .map(([code, count]) => ({ code, count }))
    .sort((a, b) => b.count - a.count || a.code.localeCompare(b.code));
}

export function prepareErrors(runs: LoadResultsRun[], rateKey: string | null): PreparedErrors {
  const { points } = pointsAtRate(runs, rateKey);
  const counted = points.filter((p) => p.result.errors !== null);
  const table = counted.map(({ run, result: r, connections }) => ({
    run: run.label,
    mode: r.mode,
    connections,
    requests: r.requests,
    errors: r.errors as number,
    fraction: r.requests ? (r.errors as number) / r.requests : null,
    byCode: errorCodes(r.errorsByCode),
  }));
  const total = table.reduce((sum, r) => sum + r.errors, 0);
  if (counted.length === 0) return { bars: null, table, total };
  const specs = modeSeries(runs, counted);
  const rows = new Map<number, SeriesRow>();
  for (const p of counted) {
    let row = rows.get(p.connections);
    if (!row) {
      row = { x: p.connections };
      for (const k of specs.keys()) row[k] = null;
      rows.set(p.connections, row);
    }
    row[seriesKey(p.runIndex, p.result.mode)] = p.result.errors;
  }
  return {
    bars: {
      series: [...specs.values()],
      rows: [...rows.values()].sort((a, b) => a.x - b.x),
      y: valueAxis(
        counted.map((p) => p.result.errors as number),
        4,
      ),
    },
    table,
    total,
  };
}
