// Replicas started together on an empty database all come up, and the migrations are applied
// once: straight to Postgres, and through pgbouncer in transaction pooling mode.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { migrationsFolder } from '@meshbench/db';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiProcess, startApiProcess } from '../test/api-process.ts';
import { type EmptyDatabase, emptyDatabase } from '../test/empty-database.ts';
import { type Pgbouncer, startPgbouncer } from '../test/pgbouncer.ts';

const url = process.env.DATABASE_URL;
const journal = JSON.parse(readFileSync(join(migrationsFolder, 'meta/_journal.json'), 'utf8')) as {
  entries: { tag: string; when: number }[];
};

describe.skipIf(!url).each(['postgres', 'pgbouncer'] as const)(
  'three replicas started at once on an empty database, on %s',
  (via) => {
    let database: EmptyDatabase;
    let bouncer: Pgbouncer | undefined;
    const apis: ApiProcess[] = [];
    beforeAll(async () => {
      database = await emptyDatabase(url as string, `mb_migrate_${via}_${process.pid}`);
      if (via === 'pgbouncer') bouncer = await startPgbouncer(database.url);
    });
    afterAll(async () => {
      for (const api of apis) {
        api.child.kill('SIGTERM');
        await api.exited;
      }
      await bouncer?.stop();
      await database?.drop();
    });

    it('all come up, and each migration is applied once', async () => {
      const started = await Promise.allSettled(
        [1, 2, 3].map(() =>
          // One attempt each: a replica that dies in its migrations is the failure.
          startApiProcess({ DATABASE_URL: bouncer?.url ?? database.url }, 1),
        ),
      );
      for (const s of started) if (s.status === 'fulfilled') apis.push(s.value);
      expect(started.map((s) => (s.status === 'rejected' ? String(s.reason) : 'up'))).toEqual([
        'up',
        'up',
        'up',
      ]);
      for (const api of apis) expect(await api.json('/health')).toMatchObject({ status: 'ok' });
      const c = new pg.Client({ connectionString: database.url });
      await c.connect();
      const applied = await c.query<{ created_at: string }>(
        'select created_at from drizzle.__drizzle_migrations order by id',
      );
      await c.end();
      expect(applied.rows.map((r) => Number(r.created_at))).toEqual(
        journal.entries.map((e) => e.when),
      );
    }, 180_000);
  },
);
