// The API's Postgres connections behind pgbouncer in transaction pooling mode: no startup
// parameter (pgbouncer refuses `options`), JIT off inside every transaction by SET LOCAL,
// and nothing left behind on the server connections that other clients then get.
import { type Database, migrateDatabase, openDatabase, sql } from '@meshbench/db';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Pgbouncer, startPgbouncer } from '../test/pgbouncer.ts';

const url = process.env.DATABASE_URL;

const rows = <T>(result: unknown) => (result as { rows: T[] }).rows;

describe.skipIf(!url)('the database through pgbouncer (transaction pooling)', () => {
  let bouncer: Pgbouncer;
  let database: Database;
  let serverJit: string;
  beforeAll(async () => {
    // One server connection: whatever a transaction left on it, the next one sees.
    bouncer = await startPgbouncer(url as string, { default_pool_size: 1 });
    database = await openDatabase({ url: bouncer.url, poolSize: 4 });
    const direct = new pg.Client({ connectionString: url });
    await direct.connect();
    serverJit = (await direct.query<{ jit: string }>('show jit')).rows[0]?.jit as string;
    await direct.end();
  });
  afterAll(async () => {
    await database?.close();
    await bouncer?.stop();
  });

  it('connects and migrates, with no startup parameter refused', async () => {
    await migrateDatabase(database);
    const answer = await database.db.execute(sql`select count(*)::int as n from projects`);
    expect(rows<{ n: number }>(answer)[0]?.n).toBeGreaterThanOrEqual(1);
    expect(bouncer.log()).not.toContain('unsupported startup parameter');
  });

  it('has JIT off inside a transaction and in a COPY out, and leaves the server’s setting after', async () => {
    const inside = await database.transaction(async (tx) =>
      rows<{ jit: string }>(await tx.db.execute(sql`show jit`)),
    );
    expect(inside[0]?.jit).toBe('off');
    // COPY (select current_setting('jit')) in binary: one row, one text field.
    const copied = await database.copyOut(`select current_setting('jit')`);
    expect(copied.includes(Buffer.from('off'))).toBe(true);
    // The one server connection, outside any transaction, has the server's own setting.
    const after = rows<{ jit: string }>(await database.db.execute(sql`show jit`));
    expect(after[0]?.jit).toBe(serverJit);
  });
});
