// Reading what `db.execute` returns, the same for both drivers: the rows of a raw statement,
// how many rows a write touched, and numbers Postgres sent as text (numeric, int8).

/** The rows of a raw statement's result. */
export const rowsOf = <T>(result: unknown): T[] => (result as { rows: T[] }).rows;

/** Rows a write touched: node-postgres says rowCount, PGlite affectedRows. */
export const rowCountOf = (result: unknown): number =>
  (result as { rowCount?: number | null; affectedRows?: number }).rowCount ??
  (result as { affectedRows?: number }).affectedRows ??
  0;

export const num = (v: unknown): number => Number(v);
export const numOrNull = (v: unknown): number | null =>
  v === null || v === undefined ? null : Number(v);

/** Rows grouped by `keyOf` (a read of many runs, by run), each group in the rows' order. */
export function groupRows<T>(rows: readonly T[], keyOf: (row: T) => string): Map<string, T[]> {
  const out = new Map<string, T[]>();
  for (const row of rows) {
    const id = keyOf(row);
    const list = out.get(id);
    if (list) list.push(row);
    else out.set(id, [row]);
  }
  return out;
}
