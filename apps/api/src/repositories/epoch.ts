// Times between JavaScript (epoch ms) and Postgres: SQL that reads a timestamptz as Unix
// epoch µs or ms, and a COPY field written from epoch ms. Postgres' own epoch (2000-01-01)
// is kept once, in @meshbench/db's COPY writer and reader.
import { type Db, putNullField, putTimestampField } from '@meshbench/db';
import { type SQL, sql } from 'drizzle-orm';
import { rowsOf } from './result-rows.ts';

/** A timestamptz column as Unix epoch microseconds (float8, exact to the µs). */
export const epochUs = (column: unknown) =>
  sql<number>`(extract(epoch from ${column}) * 1000000)::float8`;

/** A timestamptz(3) field from epoch ms, truncated to the millisecond as Date does. */
export function putMsField(d: Uint8Array, p: number, ms: number | null): number {
  if (ms === null || !Number.isFinite(ms)) return putNullField(d, p);
  return putTimestampField(d, p, Math.trunc(ms) * 1000);
}

/** The latest time (epoch ms) in a run's rows of `table`, or null when it has none. */
export async function latestMs(
  db: Db,
  table: SQL,
  column: SQL,
  runId: string,
): Promise<number | null> {
  const result = await db.execute(
    sql`select (extract(epoch from max(${column})) * 1000)::float8 as t from ${table} where run_id = ${runId}`,
  );
  const t = rowsOf<{ t: number | null }>(result)[0]?.t;
  return t === null || t === undefined ? null : Number(t);
}
