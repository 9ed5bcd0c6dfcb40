// Opens the database (embedded or server), applies migrations, closes it with the app.
import fp from 'fastify-plugin';
import { type Database, migrateDatabase, openDatabase } from '../repositories/database.ts';

declare module 'fastify' {
  interface FastifyInstance {
    database: Database;
  }
}

export interface DatabasePluginOptions {
  databaseUrl: string | undefined;
  /** A streaming standby of databaseUrl for reads that may lag (read-routing.plugin.ts). */
  databaseReadUrl?: string | undefined;
  readMaxLagMs?: number;
  /** Postgres: its pool's size, and of it the connections writes may hold at once. */
  poolSize?: number;
  uploadConnections?: number;
  /** Embedded database directory; undefined keeps it in memory (tests). */
  dataDir: string | undefined;
  /** An already open database, e.g. shared by a test suite. */
  database?: Database;
}

export default fp<DatabasePluginOptions>(
  async (app, opts) => {
    const database =
      opts.database ??
      (await openDatabase({
        url: opts.databaseUrl,
        dataDir: opts.dataDir,
        readUrl: opts.databaseReadUrl,
        ...(opts.poolSize ? { poolSize: opts.poolSize } : {}),
        uploadConnections: opts.uploadConnections,
        ...(opts.readMaxLagMs ? { standby: { maxLagMs: opts.readMaxLagMs } } : {}),
      }));
    await migrateDatabase(database);
    app.decorate('database', database);
    if (!opts.database) app.addHook('onClose', () => database.close());
  },
  { name: 'database' },
);
