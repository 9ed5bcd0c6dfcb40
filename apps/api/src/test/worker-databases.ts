// The int tier's global setup: with DATABASE_URL set, one database per vitest worker on its
// server (`<name>_<pid>_w1`, `<name>_<pid>_w2`, ...; pid: the run's main process, so that two
// runs on one server never drop each other's), new and migrated, dropped when the run ends, so
// that files running at the same time never read each other's rows (remote-write points with
// no run tag, for one, are stored in any live run of the database). worker-database.setup.ts
// points each worker's DATABASE_URL at its own.
import { migrateDatabase, openDatabase } from '@meshbench/db';
import pg from 'pg';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    /** DATABASE_URL as the run was started with, or '' (embedded only). */
    serverDatabaseUrl: string;
    /** The run's main process, in its workers' database names. */
    runPid: number;
  }
}

/** Worker `poolId`'s database, of the run of main process `pid`, on the server of `url`. */
export function workerDatabaseUrl(url: string, pid: number, poolId: number | string): string {
  const own = new URL(url);
  own.pathname = `/${workerDatabaseName(url, pid, poolId)}`;
  return own.toString();
}

function workerDatabaseName(url: string, pid: number, poolId: number | string): string {
  const name = decodeURIComponent(new URL(url).pathname.slice(1)) || 'postgres';
  if (!/^[a-z_][a-z0-9_]*$/.test(name))
    throw new Error(`DATABASE_URL names database "${name}": lower case letters, digits and _`);
  return `${name}_${pid}_w${poolId}`;
}

async function admin(url: string, statements: string[]): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    for (const statement of statements) await client.query(statement);
  } finally {
    await client.end();
  }
}

export default async function setup(project: TestProject) {
  const url = process.env.DATABASE_URL ?? '';
  project.provide('serverDatabaseUrl', url);
  project.provide('runPid', process.pid);
  if (!url) return;
  const workers = Math.max(1, Number(project.globalConfig.maxWorkers) || 1);
  const names = Array.from({ length: workers }, (_, i) =>
    workerDatabaseName(url, process.pid, i + 1),
  );
  const drop = () =>
    admin(
      url,
      names.map((n) => `drop database if exists ${n} with (force)`),
    );
  await drop();
  await admin(
    url,
    names.map((n) => `create database ${n}`),
  );
  for (let i = 1; i <= workers; i++) {
    const database = await openDatabase({
      url: workerDatabaseUrl(url, process.pid, i),
      poolSize: 1,
    });
    try {
      await migrateDatabase(database);
    } finally {
      await database.close();
    }
  }
  return drop;
}
