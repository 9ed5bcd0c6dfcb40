// Which failures of the real driver are a database outage (503 + Retry-After) and which are
// not: connections refused, terminated while in use, none free in time; against PostgreSQL.
import { createServer } from 'node:net';
import { type Database, openDatabase } from '@meshbench/db';
import { sql } from 'drizzle-orm';
import { afterAll, describe, expect, it } from 'vitest';
import { asAppError } from './services/failure.ts';

const url = process.env.DATABASE_URL;

/** A port nothing listens on. */
const closedPort = () =>
  new Promise<number>((resolve) => {
    const srv = createServer().listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });

const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => {
      throw new Error('expected a failure');
    },
    (error: unknown) => error,
  );

describe.skipIf(!url)('database failures as errors of the API (PostgreSQL)', () => {
  const opened: Database[] = [];
  const open = async (options: { poolSize?: number; connectTimeoutMs?: number } = {}) => {
    const database = await openDatabase({ url, ...options });
    opened.push(database);
    return database;
  };
  afterAll(async () => {
    for (const database of opened) await database.close().catch(() => {});
  });

  it('answers 503 + Retry-After for a server that refuses connections, naming no address', async () => {
    const port = await closedPort();
    const database = await openDatabase({ url: `postgres://postgres@127.0.0.1:${port}/none` });
    opened.push(database);
    const error = asAppError(await failure(database.db.execute(sql`select 1`)));
    expect(error?.statusCode).toBe(503);
    expect(error?.code).toBe('database_unavailable');
    expect(error?.retryAfterS).toBe(2);
    expect(error?.message).toContain('ECONNREFUSED');
    expect(error?.message).not.toContain('127.0.0.1');
  });

  it('survives a connection terminated in the middle of a transaction, and serves the next query', async () => {
    const database = await open({ poolSize: 2 });
    const admin = await open();
    const error = await failure(
      database.transaction(async (tx) => {
        const result = await tx.db.execute(sql`select pg_backend_pid() as pid`);
        const { pid } = (result as unknown as { rows: { pid: number }[] }).rows[0] as {
          pid: number;
        };
        // As a fast shutdown does to every backend: 57P01, then the socket closes. The
        // client is checked out: its 'error' event must not be an uncaught exception.
        await admin.db.execute(sql`select pg_terminate_backend(${pid})`);
        await new Promise((r) => setTimeout(r, 200));
        await tx.db.execute(sql`select 1`);
      }),
    );
    const mapped = asAppError(error);
    expect(mapped?.statusCode, String(error)).toBe(503);
    expect(mapped?.code).toBe('database_unavailable');
    // The broken connection left the pool: the next ones work.
    for (let i = 0; i < 3; i++) {
      const ok = await database.db.execute(sql`select 1 as one`);
      expect((ok as unknown as { rows: { one: number }[] }).rows[0]?.one).toBe(1);
    }
  });

  it('answers 503 when terminated during a query, too', async () => {
    const database = await open({ poolSize: 1 });
    const admin = await open();
    const running = failure(database.db.execute(sql`select pg_sleep(5)`));
    await new Promise((r) => setTimeout(r, 200));
    await admin.db.execute(
      sql`select pg_terminate_backend(pid) from pg_stat_activity
          where query = 'select pg_sleep(5)' and pid <> pg_backend_pid()`,
    );
    const mapped = asAppError(await running);
    expect(mapped?.code).toBe('database_unavailable');
    expect(mapped?.message).toMatch(/57P01|connection/);
  });

  it('answers 503 when no pool connection comes free in time', async () => {
    const database = await open({ poolSize: 1, connectTimeoutMs: 300 });
    let release: () => void = () => {};
    const held = database.transaction(
      () =>
        new Promise<void>((resolve) => {
          release = resolve;
        }),
    );
    await new Promise((r) => setTimeout(r, 100));
    const started = Date.now();
    const mapped = asAppError(await failure(database.db.execute(sql`select 1`)));
    release();
    await held;
    expect(Date.now() - started).toBeLessThan(2000);
    expect(mapped?.code).toBe('database_unavailable');
    expect(mapped?.message).toContain('no database connection came free in time');
  });

  it('leaves every other database error as it is (a 500 or the route’s own mapping)', async () => {
    const database = await open();
    expect(asAppError(await failure(database.db.execute(sql`select * from no_such_table`)))).toBe(
      undefined,
    );
    expect(asAppError(await failure(database.db.execute(sql`select 1/0`)))).toBe(undefined);
    expect(asAppError(new Error('something else'))).toBe(undefined);
  });
});
