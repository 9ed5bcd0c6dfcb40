// One database interface over two drivers: PGlite (embedded) and node-postgres (server).
// Ordinary queries go through drizzle; bulk loads go through COPY on the same transaction.
import { chmodSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { PGlite, type Transaction as PGliteTransaction } from '@electric-sql/pglite';
import { sql } from 'drizzle-orm';
import { readMigrationFiles } from 'drizzle-orm/migrator';
import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import pg from 'pg';
import { from as copyFrom, to as copyTo } from 'pg-copy-streams';
import { migrationsFolder } from './migrations-folder.ts';
import {
  isReadOnlyRefusal,
  onStandby,
  type StandbyOptions,
  type StandbyReads,
  standbyReads,
} from './read-routing.ts';
import * as schema from './schema/index.ts';
import { capUploads, type UploadConnections } from './upload-connections.ts';

export type Schema = typeof schema;
export type Db = PgDatabase<PgQueryResultHKT, Schema>;
export type DatabaseKind = 'embedded' | 'postgres';

/** Rows for COPY ... FROM STDIN (text format), produced as chunks of lines. */
export type CopySource = AsyncIterable<string | Uint8Array> | Iterable<string | Uint8Array>;

export interface Tx {
  readonly db: Db;
  /**
   * Loads rows with COPY; `source` yields already-escaped lines (text format) or the whole
   * binary stream, header and trailer included, in chunks (binary format).
   */
  copy(
    table: string,
    columns: readonly string[],
    source: CopySource,
    options?: CopyOptions,
  ): Promise<void>;
  /** `COPY (query) TO STDOUT WITH (FORMAT binary)` on this transaction, whole. */
  copyOut(query: string): Promise<Buffer>;
}

export interface CopyOptions {
  /** COPY's format; text unless told. */
  format?: 'text' | 'binary';
  /**
   * Runs once every row is sent, while the database still works on them; the COPY ends
   * when both have (work done in slices lets other requests run meanwhile).
   */
  whileFinishing?: () => void | Promise<void>;
}

export interface Database {
  readonly kind: DatabaseKind;
  readonly db: Db;
  /**
   * The result of `COPY (query) TO STDOUT WITH (FORMAT binary)`, whole: many rows of
   * numbers cost a fraction of what the same rows cost as text in node-postgres. COPY takes
   * no bind parameters, so `query` must carry its values as checked literals.
   */
  copyOut(query: string): Promise<Buffer>;
  transaction<T>(fn: (tx: Tx) => Promise<T>): Promise<T>;
  /**
   * Loads rows with COPY (as `Tx.copy`) in a transaction of its own, then runs `then` in it
   * before it commits. On Postgres that is two round trips where a transaction of the same
   * statements takes four: BEGIN goes with the COPY, `then` with COMMIT (simple protocol:
   * `then` takes no bind parameters, so it must carry its values as checked literals).
   */
  copyThenCommit(
    table: string,
    columns: readonly string[],
    source: CopySource,
    options?: CopyOptions & { then?: string },
  ): Promise<void>;
  close(): Promise<void>;
  /**
   * Postgres: runs `fn` on a connection of its own, outside the caller's transaction and
   * upload permit, each statement committed as it ends: catalog work (a run's partition made
   * while its batch's transaction is open) whose locks that transaction must not hold until
   * it commits. One connection, opened when first needed, for all such work. Absent on the
   * embedded database, whose one connection an open transaction holds.
   */
  readonly outside?: <T>(fn: (db: Db) => Promise<T>) => Promise<T>;
  /** The streaming standby reads may go to (DATABASE_READ_URL), when there is one. */
  readonly standby?: StandbyReads;
  /** Postgres: the cap on pool connections held by uploads (upload-connections.ts). */
  readonly uploads?: UploadConnections;
  /** Embedded: its files as they are now, as a tar that `image` in DatabaseOptions opens. */
  image?(): Promise<Blob>;
}

export interface DatabaseOptions {
  /** postgres:// URL; when absent the embedded database is used. */
  url?: string | undefined;
  /** Directory of the embedded database; absent means in memory. */
  dataDir?: string | undefined;
  /**
   * The files of an embedded database (a tar from `image()`) that an in-memory embedded
   * database starts from, instead of a new cluster; not with `url` or `dataDir`.
   */
  image?: Blob | undefined;
  /** Pool size for the server driver. */
  poolSize?: number;
  /**
   * Pool connections that code run as an upload (`uploads.run`) may hold at once; must be
   * below the pool size, so that reads always find connections. Absent: no cap.
   */
  uploadConnections?: number | undefined;
  /**
   * Longest wait for a connection of the server driver (a free one of the pool, or a new
   * one to an unreachable host); past it the query fails as the database being unavailable.
   */
  connectTimeoutMs?: number;
  /** postgres:// URL of a streaming standby of `url`, for reads that may lag. */
  readUrl?: string | undefined;
  /** How the standby is judged (read-routing.ts); defaults below. */
  standby?: Partial<StandbyOptions>;
}

/** A standby more than this far behind the primary's flushed WAL serves no read. */
export const DEFAULT_STANDBY_MAX_LAG_MS = 2000;

/** Connections of the server driver's pool unless told. */
export const DEFAULT_POOL_SIZE = 10;

/** How long a query waits for a pool connection unless told. */
export const DEFAULT_CONNECT_TIMEOUT_MS = 10_000;

export async function openDatabase(options: DatabaseOptions): Promise<Database> {
  if (options.readUrl && !options.url)
    throw new Error('a read standby (DATABASE_READ_URL) needs a primary (DATABASE_URL)');
  if (options.image && (options.url || options.dataDir))
    throw new Error('an embedded image opens in memory only: not with a URL or a data directory');
  const maxLagMs = options.standby?.maxLagMs ?? DEFAULT_STANDBY_MAX_LAG_MS;
  const database = options.url
    ? openPostgres(
        options.url,
        options.poolSize ?? DEFAULT_POOL_SIZE,
        options.uploadConnections,
        options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS,
        options.readUrl
          ? {
              url: options.readUrl,
              maxLagMs,
              probeMs: options.standby?.probeMs ?? Math.min(1000, Math.max(50, maxLagMs / 4)),
            }
          : undefined,
      )
    : await openEmbedded(options.dataDir, options.image);
  return database;
}

/** Socket errors (node-postgres passes them on as they are) that mean the server is gone. */
const SOCKET_CODES: Record<string, string> = {
  ECONNREFUSED: 'the database server refuses connections (ECONNREFUSED)',
  ECONNRESET: 'the connection to the database server was reset (ECONNRESET)',
  ECONNABORTED: 'the connection to the database server was aborted (ECONNABORTED)',
  EPIPE: 'the connection to the database server was closed (EPIPE)',
  ETIMEDOUT: 'the database server did not answer (ETIMEDOUT)',
  EHOSTUNREACH: 'the database server is unreachable (EHOSTUNREACH)',
  ENETUNREACH: 'the database server is unreachable (ENETUNREACH)',
  ENOTFOUND: "the database server's name does not resolve (ENOTFOUND)",
  EAI_AGAIN: "the database server's name does not resolve now (EAI_AGAIN)",
};

/** SQLSTATEs of a server that is going, gone or full (PostgreSQL, Appendix A). */
const SQLSTATES: Record<string, string> = {
  '57P01': 'the database server is shutting down (57P01 admin_shutdown)',
  '57P02': 'the database server crashed (57P02 crash_shutdown)',
  '57P03': 'the database server is starting up or shutting down (57P03 cannot_connect_now)',
  '53300': 'the database server has no free connections (53300 too_many_connections)',
};

/**
 * Messages node-postgres and pg-pool give a lost or missing connection (pg 8 lib/client.js,
 * pg-pool 3 index.js): the server closed it, the connect timed out, or a client that already
 * failed was used again.
 */
const LOST: [RegExp, string][] = [
  [/^Connection terminated/, 'the connection to the database server was lost'],
  [/^timeout exceeded when trying to connect/, 'no database connection came free in time'],
  [/is not queryable$/, 'the connection to the database server was lost'],
];

/**
 * Why `error` means the database cannot be used now (a restart, a crash, a network fault, no
 * free connection in time), in words without addresses; undefined for any other error. Looks
 * through `cause` (drizzle wraps driver errors) and AggregateError (a host of several
 * addresses).
 */
export function databaseUnavailableReason(error: unknown): string | undefined {
  const seen = new Set<unknown>();
  const queue: unknown[] = [error];
  while (queue.length > 0) {
    const e = queue.shift();
    if (!e || typeof e !== 'object' || seen.has(e)) continue;
    seen.add(e);
    const { code, message, cause, errors } = e as {
      code?: unknown;
      message?: unknown;
      cause?: unknown;
      errors?: unknown;
    };
    if (typeof code === 'string') {
      const reason =
        SOCKET_CODES[code] ??
        SQLSTATES[code] ??
        (/^08[0-9A-Z]{3}$/.test(code)
          ? `the connection to the database server failed (${code})`
          : undefined);
      if (reason) return reason;
    }
    if (typeof message === 'string') {
      for (const [pattern, reason] of LOST) if (pattern.test(message)) return reason;
    }
    queue.push(cause);
    if (Array.isArray(errors)) queue.push(...errors);
  }
  return undefined;
}

/**
 * The key of the transaction-level advisory lock that migrations run under: 64 bits of
 * SHA-256("meshbench migrations") as a signed int8, fixed so every replica and version takes the same one.
 */
export const MIGRATIONS_LOCK_KEY = '-7077820567861570222';

/**
 * Applies the committed migrations; the same files for both drivers. On Postgres they run in
 * one transaction that first takes a transaction-level advisory lock, so replicas started
 * together on an empty database apply them once: the others wait, then find nothing left to
 * apply. A transaction lock (not a session one) is released by COMMIT on the connection that
 * took it, so it holds behind pgbouncer in transaction pooling mode too.
 */
export async function migrateDatabase(database: Database): Promise<void> {
  if (database.kind === 'postgres') {
    const migrations = readMigrationFiles({ migrationsFolder });
    await database.transaction(async (tx) => {
      await tx.db.execute(sql`select pg_advisory_xact_lock(${MIGRATIONS_LOCK_KEY}::int8)`);
      await applyMigrations(tx.db, migrations);
    });
  } else {
    await migratePglite(database.db as Parameters<typeof migratePglite>[0], { migrationsFolder });
  }
}

/**
 * What drizzle-orm 0.45's PgDialect.migrate does (pg-core/dialect.js), on a transaction the
 * caller holds: the same journal table, so a database migrated by either is read by both.
 */
async function applyMigrations(
  db: Db,
  migrations: ReturnType<typeof readMigrationFiles>,
): Promise<void> {
  await db.execute(sql`create schema if not exists drizzle`);
  await db.execute(sql`
    create table if not exists drizzle.__drizzle_migrations (
      id serial primary key,
      hash text not null,
      created_at bigint
    )`);
  const last = (await db.execute(
    sql`select created_at::float8 as at from drizzle.__drizzle_migrations order by created_at desc limit 1`,
  )) as unknown as { rows: { at: number | null }[] };
  const lastAt = last.rows[0] ? Number(last.rows[0].at) : undefined;
  for (const migration of migrations) {
    if (lastAt !== undefined && lastAt >= migration.folderMillis) continue;
    for (const statement of migration.sql) await db.execute(sql.raw(statement));
    await db.execute(
      sql`insert into drizzle.__drizzle_migrations ("hash", "created_at") values (${migration.hash}, ${migration.folderMillis})`,
    );
  }
}

const copyStatement = (
  table: string,
  columns: readonly string[],
  from: string,
  options: CopyOptions | undefined,
) =>
  `COPY ${table} (${columns.map((c) => `"${c}"`).join(', ')}) FROM ${from}${options?.format === 'binary' ? ' WITH (FORMAT binary)' : ''}`;

/**
 * Opens every transaction. No JIT: the API's queries are short, and a planner that guesses
 * high (before ANALYZE has seen a load) would spend a second compiling one of them. It is
 * set per transaction (SET LOCAL), not as a startup parameter or a session SET: pgbouncer
 * refuses startup parameters (`unsupported startup parameter: options`), and in its
 * transaction pooling mode a session setting would stay on whichever server connection
 * took it. One simple-protocol round trip for both statements.
 */
const BEGIN = 'begin; set local jit = off';

/**
 * Streams `source` into the COPY ... FROM STDIN that `text` ends with (statements before it,
 * such as BEGIN, go in the same simple-protocol message).
 */
async function copyIn(
  client: pg.PoolClient,
  text: string,
  source: CopySource,
  options: CopyOptions | undefined,
): Promise<void> {
  const stream = client.query(copyFrom(text));
  // The COPY can fail before its source has ended: on a connection that broke
  // (a restart), node-postgres fails the query on the next tick. The failure is kept,
  // stops the loop at the next chunk, and is awaited below; until then it must not
  // count as an unhandled rejection, which would end the process.
  let failed: Error | undefined;
  const done = new Promise<void>((resolve, reject) => {
    stream.on('finish', resolve);
    stream.on('error', (error: Error) => {
      failed ??= error;
      reject(error);
    });
  });
  done.catch(() => {});
  try {
    for await (const chunk of source) {
      if (failed) throw failed;
      if (!stream.write(chunk)) {
        await new Promise<void>((resolve, reject) => {
          const fail = (error: Error) => reject(error);
          stream.once('error', fail);
          stream.once('drain', () => {
            stream.off('error', fail);
            resolve();
          });
        });
      }
    }
  } catch (error) {
    // Abort the COPY (CopyFail) so the connection is usable for ROLLBACK.
    stream.destroy(error as Error);
    await done.catch(() => {});
    throw error;
  }
  stream.end();
  await Promise.all([done, options?.whileFinishing?.()]);
}

function openPool(url: string, max: number, connectTimeoutMs: number): pg.Pool {
  // Nothing session-wide on these connections (no startup options, no session SET,
  // advisory lock or named prepared statement), so they can be pgbouncer's in transaction
  // pooling mode.
  const pool = new pg.Pool({
    connectionString: url,
    max,
    connectionTimeoutMillis: connectTimeoutMs,
    // A server that vanished without closing its sockets is noticed, not waited for.
    keepAlive: true,
  });
  // A broken idle connection must not take the process down; the next query reconnects.
  pool.on('error', () => {});
  // Nor a broken connection in use (a restart mid-transaction): node-postgres emits 'error'
  // on the client as well as failing its query, and pg-pool listens only while the client
  // is idle. The query's own error reaches the request; the client, no longer queryable,
  // is dropped by the pool when released.
  pool.on('connect', (client) => {
    client.on('error', () => {});
  });
  return pool;
}

/**
 * A drizzle instance on a pooled connection, made once per connection: making one reads
 * the whole schema's relations, which cost as much as a small write's own statements.
 */
const drizzleOnClient = new WeakMap<pg.PoolClient, Db>();
function drizzleOf(client: pg.PoolClient): Db {
  let db = drizzleOnClient.get(client);
  if (!db) {
    db = drizzlePg(client, { schema }) as unknown as Db;
    drizzleOnClient.set(client, db);
  }
  return db;
}

function openPostgres(
  url: string,
  max: number,
  uploadConnections: number | undefined,
  connectTimeoutMs: number,
  read: (StandbyOptions & { url: string }) | undefined,
): Database {
  const primary = openPool(url, max, connectTimeoutMs);
  // With a standby, queries take the pool of their request's scope (the primary outside one).
  const routing = read
    ? standbyReads(
        primary,
        openPool(read.url, max, connectTimeoutMs),
        read,
        databaseUnavailableReason,
      )
    : undefined;
  if (uploadConnections !== undefined && !(uploadConnections >= 1 && uploadConnections < max))
    throw new Error(
      `uploads may hold 1 to ${max - 1} of the pool's ${max} connections, not ${uploadConnections}`,
    );
  // Uploads wait for a permit as long as a query waits for a pool connection.
  const capped =
    uploadConnections === undefined
      ? undefined
      : capUploads(routing?.pool ?? primary, uploadConnections, connectTimeoutMs);
  const pool = (capped?.pool ?? routing?.pool ?? primary) as unknown as pg.Pool;
  const standbyPool = routing ? routing.pool.standbyPool : undefined;
  const db = drizzlePg(pool, { schema }) as unknown as Db;
  /** The connection of `outside`: past the upload cap and the pool, so it never waits for them. */
  let outsidePool: pg.Pool | undefined;
  const database: Database = {
    kind: 'postgres',
    db,
    async outside(fn) {
      outsidePool ??= openPool(url, 1, connectTimeoutMs);
      const client = await outsidePool.connect();
      // A failed statement may have broken the connection: it is not handed out again.
      let failed = false;
      try {
        return await fn(drizzleOf(client));
      } catch (error) {
        failed = true;
        throw error;
      } finally {
        client.release(failed);
      }
    },
    ...(routing ? { standby: routing.reads } : {}),
    ...(capped ? { uploads: capped.uploads } : {}),
    copyOut(query) {
      // In a transaction of its own, for its SET LOCAL.
      return database.transaction((tx) => tx.copyOut(query));
    },
    async transaction(fn) {
      const client = await pool.connect();
      let released = false;
      try {
        await client.query(BEGIN);
        const tx: Tx = {
          db: drizzleOf(client),
          copy(table, columns, source, options) {
            return copyIn(client, copyStatement(table, columns, 'STDIN', options), source, options);
          },
          async copyOut(query) {
            const stream = client.query(copyTo(`COPY (${query}) TO STDOUT WITH (FORMAT binary)`));
            const parts: Buffer[] = [];
            for await (const chunk of stream) parts.push(chunk as Buffer);
            return Buffer.concat(parts);
          },
        };
        const result = await fn(tx);
        await client.query('COMMIT');
        return result;
      } catch (error) {
        released = await rollBackOrDrop(client);
        throw error;
      } finally {
        if (!released) client.release();
      }
    },
    async copyThenCommit(table, columns, source, options) {
      const then = options?.then;
      if (routing && onStandby()) {
        // In a read's scope: the routed transaction, which moves to the primary on refusal.
        return database.transaction(async (tx) => {
          await tx.copy(table, columns, source, options);
          if (then) await tx.db.execute(sql.raw(then));
        });
      }
      const client = await pool.connect();
      let released = false;
      try {
        await copyIn(
          client,
          `${BEGIN}; ${copyStatement(table, columns, 'STDIN', options)}`,
          source,
          options,
        );
        await client.query(then ? `${then}; COMMIT` : 'COMMIT');
      } catch (error) {
        released = await rollBackOrDrop(client);
        throw error;
      } finally {
        if (!released) client.release();
      }
    },
    async close() {
      routing?.reads.close();
      await Promise.all([primary.end(), standbyPool?.end(), outsidePool?.end()]);
    },
  };
  if (routing) {
    const inTransaction = database.transaction.bind(database);
    database.transaction = async (fn) => {
      if (!onStandby()) return inTransaction(fn);
      try {
        return await inTransaction(fn);
      } catch (error) {
        // A read that still writes (a summary kept on first read): the standby refused the
        // write, so the whole transaction is made again on the primary.
        if (!isReadOnlyRefusal(error)) throw error;
        routing.reads.wroteOnRead();
        return routing.reads.run('primary', () => inTransaction(fn));
      }
    };
  }
  return database;
}

/**
 * Rolls back a failed transaction; a connection that cannot even roll back is dropped from
 * the pool (released as broken). True when it was released here.
 */
async function rollBackOrDrop(client: pg.PoolClient): Promise<boolean> {
  try {
    await client.query('ROLLBACK');
    return false;
  } catch {
    client.release(true);
    return true;
  }
}

/**
 * The embedded database's files are the owner's alone, as Postgres keeps its own: PGlite
 * writes its files world-writable (0666, whatever the umask), so the directory is closed to
 * others (0700) before it opens, and the files it left are made the owner's (0600/0700)
 * when it opens and closes.
 */
function ownerOnly(dir: string): void {
  chmodSync(dir, 0o700);
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) ownerOnly(path);
    else if (entry.isFile()) chmodSync(path, 0o600);
  }
}

async function openEmbedded(
  dataDir: string | undefined,
  image: Blob | undefined,
): Promise<Database> {
  if (dataDir) {
    mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    ownerOnly(dataDir);
  }
  const client = dataDir
    ? new PGlite(dataDir)
    : new PGlite(image ? { loadDataDir: image } : undefined);
  await client.waitReady;
  if (dataDir) ownerOnly(dataDir);
  const db = drizzlePglite(client, { schema }) as unknown as Db;
  const database: Database = {
    kind: 'embedded',
    db,
    async copyOut(query) {
      const result = await client.query(`COPY (${query}) TO '/dev/blob' WITH (FORMAT binary)`);
      if (!result.blob) throw new Error('COPY TO gave no data');
      return Buffer.from(await result.blob.arrayBuffer());
    },
    transaction(fn) {
      // PGlite has one connection: its transaction() holds it, so no other query interleaves.
      return client.transaction(async (t: PGliteTransaction) => {
        const tx: Tx = {
          db: drizzlePglite(t as unknown as PGlite, { schema }) as unknown as Db,
          async copy(table, columns, source, options) {
            // COPY in PGlite reads a Blob; it is assembled from chunks, never one string.
            const parts: (string | Uint8Array)[] = [];
            for await (const chunk of source) parts.push(chunk);
            // One thread here: nothing overlaps, but the order is the same.
            await options?.whileFinishing?.();
            if (parts.length === 0) return;
            await t.query(copyStatement(table, columns, "'/dev/blob'", options), [], {
              blob: new Blob(parts),
            });
          },
          async copyOut(query) {
            const result = await t.query(`COPY (${query}) TO '/dev/blob' WITH (FORMAT binary)`);
            if (!result.blob) throw new Error('COPY TO gave no data');
            return Buffer.from(await result.blob.arrayBuffer());
          },
        };
        return fn(tx);
      });
    },
    async copyThenCommit(table, columns, source, options) {
      await database.transaction(async (tx) => {
        await tx.copy(table, columns, source, options);
        if (options?.then) await tx.db.execute(sql.raw(options.then));
      });
    },
    image: () => client.dumpDataDir('none'),
    async close() {
      await client.close();
      if (dataDir) ownerOnly(dataDir);
    },
  };
  return database;
}

export { sql };
