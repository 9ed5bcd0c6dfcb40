// Databases of a suite's own, so that "unchanged" is about that suite's rows only: a fresh
// embedded one, and a database created for the suite on the server at DATABASE_URL.
import { type Database, openDatabase } from '@meshbench/db';
import { sql } from 'drizzle-orm';
import { openEmbeddedCopy } from './embedded-image.ts';
import type { Backend } from './harness.ts';

let scratchCount = 0;

export function scratchBackends(prefix: string): Backend[] {
  return [
    { name: 'embedded', open: openEmbeddedCopy },
    ...(process.env.DATABASE_URL
      ? [
          {
            name: 'postgres' as const,
            open: async (): Promise<Database> => {
              const url = process.env.DATABASE_URL as string;
              const name = `${prefix}_${process.pid}_${++scratchCount}`;
              const admin = await openDatabase({ url, poolSize: 1 });
              await admin.db.execute(sql.raw(`DROP DATABASE IF EXISTS ${name}`));
              await admin.db.execute(sql.raw(`CREATE DATABASE ${name}`));
              await admin.close();
              const scratch = new URL(url);
              scratch.pathname = `/${name}`;
              const database = await openDatabase({ url: scratch.toString(), poolSize: 4 });
              const close = database.close.bind(database);
              return Object.assign(database, {
                close: async () => {
                  await close();
                  const cleanup = await openDatabase({ url, poolSize: 1 });
                  await cleanup.db.execute(sql.raw(`DROP DATABASE IF EXISTS ${name}`));
                  await cleanup.close();
                },
              });
            },
          },
        ]
      : []),
  ];
}

/** Every table's rows, hashed, in one statement: equal snapshots mean nothing changed. */
export async function snapshotAll(database: Database): Promise<Record<string, string>> {
  const tables = (await database.db.execute(
    sql.raw(
      `SELECT table_name FROM information_schema.tables
       WHERE table_schema = 'public' AND table_type = 'BASE TABLE'
         AND table_name NOT IN (SELECT relname FROM pg_class WHERE relispartition) ORDER BY table_name`,
    ),
  )) as unknown as { rows: { table_name: string }[] };
  const columns = tables.rows.map(
    ({ table_name: t }) =>
      `(SELECT count(*)::text || ':' || md5(coalesce(string_agg(x::text, E'\\n' ORDER BY x::text), '')) FROM "${t}" x) AS "${t}"`,
  );
  const r = (await database.db.execute(sql.raw(`SELECT ${columns.join(', ')}`))) as unknown as {
    rows: Record<string, string>[];
  };
  return r.rows[0] ?? {};
}
