// A connection that breaks inside a transaction (a database restart, a terminated backend)
// fails that transaction's request, and nothing else: no error escapes to the process,
// whatever the transaction was doing when it learnt of the break.
import { type Database, openDatabase, sql } from '@meshbench/db';
import pg from 'pg';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';

const url = process.env.DATABASE_URL;

describe.skipIf(!url)('a connection broken inside a transaction', () => {
  let database: Database;
  const escaped: unknown[] = [];
  const keep = (error: unknown) => escaped.push(error);

  beforeAll(async () => {
    database = await openDatabase({ url: url as string });
    process.on('unhandledRejection', keep);
    process.on('uncaughtException', keep);
  });
  beforeEach(() => {
    escaped.length = 0;
  });
  afterAll(async () => {
    process.off('unhandledRejection', keep);
    process.off('uncaughtException', keep);
    await database.close();
  });

  /** Terminates this transaction's backend from another connection. */
  async function breakConnection(tx: { db: Database['db'] }): Promise<void> {
    const { rows } = (await tx.db.execute(sql`select pg_backend_pid() as pid`)) as unknown as {
      rows: { pid: number }[];
    };
    const other = new pg.Client({ connectionString: url });
    await other.connect();
    await other.query('select pg_terminate_backend($1)', [rows[0]?.pid]);
    await other.end();
    // The client learns of the break when the server's goodbye arrives.
    await new Promise((r) => setTimeout(r, 200));
  }

  it('fails a COPY whose source is still arriving, and leaves no rejection unhandled', async () => {
    async function* slowSource() {
      for (let i = 0; i < 3; i++) {
        await new Promise((r) => setTimeout(r, 100));
        yield `${i}\n`;
      }
    }
    const attempt = database.transaction(async (tx) => {
      await tx.db.execute(sql`create temporary table broken_copy (n int)`);
      await breakConnection(tx);
      await tx.copy('broken_copy', ['n'], slowSource());
    });
    await expect(attempt).rejects.toThrow();
    // Whatever the loop was waiting for has had its time to fail.
    await new Promise((r) => setTimeout(r, 500));
    expect(escaped).toEqual([]);
    // The pool still serves.
    const { rows } = (await database.db.execute(sql`select 1 as one`)) as unknown as {
      rows: { one: number }[];
    };
    expect(rows[0]?.one).toBe(1);
  });

  it('fails a COPY out on the broken connection, and leaves nothing unhandled', async () => {
    const attempt = database.transaction(async (tx) => {
      await breakConnection(tx);
      await tx.copyOut('select 1');
    });
    await expect(attempt).rejects.toThrow();
    await new Promise((r) => setTimeout(r, 300));
    expect(escaped).toEqual([]);
  });
});
