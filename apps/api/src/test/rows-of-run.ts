// Every row a run owns, table by table (each table with a run_id column), hashed: equal
// snapshots before and after a refused request mean it stored and changed nothing of the run.
// Scoped to one run so that test files sharing a database do not see each other's writes.
import type { Database } from '@meshbench/db';
import { sql } from 'drizzle-orm';

export async function rowsOfRun(
  database: Database,
  runId: string,
): Promise<Record<string, string>> {
  const tables = (await database.db.execute(
    sql.raw(
      `SELECT c.table_name FROM information_schema.columns c
       JOIN information_schema.tables t USING (table_schema, table_name)
       WHERE c.table_schema = 'public' AND c.column_name = 'run_id' AND t.table_type = 'BASE TABLE'
         AND c.table_name NOT IN (SELECT relname FROM pg_class WHERE relispartition)
       ORDER BY c.table_name`,
    ),
  )) as unknown as { rows: { table_name: string }[] };
  const out: Record<string, string> = {};
  for (const { table_name } of tables.rows) {
    const r = (await database.db.execute(
      sql`SELECT count(*)::int AS n, md5(coalesce(string_agg(t::text, E'\\n' ORDER BY t::text), '')) AS h
          FROM ${sql.identifier(table_name)} t WHERE t.run_id = ${runId}`,
    )) as unknown as { rows: { n: number; h: string }[] };
    out[table_name] = `${r.rows[0]?.n}:${r.rows[0]?.h}`;
  }
  // The run's own row too (its status, counters).
  const run = (await database.db.execute(
    sql`SELECT md5(t::text) AS h FROM runs t WHERE t.id = ${runId}`,
  )) as unknown as { rows: { h: string }[] };
  out.runs = run.rows[0]?.h ?? '';
  return out;
}
