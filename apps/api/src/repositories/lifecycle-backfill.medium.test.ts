// Migration 0009 builds the kept lifecycle phases of runs stored before 0008 from their
// events, in SQL. They must be the bytes ingest keeps for the same events.
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { migrateDatabase, migrationsFolder, openDatabase } from '@meshbench/db';
import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { ingestBatches } from '../test/ingest-batches.ts';

describe('migration 0009 (lifecycle phases of earlier runs)', () => {
  it('builds from the events the phases ingest keeps: same arrivals, count and total', async () => {
    const database = await openDatabase({}); // its own embedded database: it truncates
    await migrateDatabase(database);
    const runId = randomUUID();
    await database.db.execute(sql`insert into runs (id, slug, benchmark, scenario, mesh_name, started_at)
      values (${runId}, ${`bf-${runId}`}, 'b', 's', 'consul', '2026-02-01T10:00:00Z')`);
    const at = (ms: number) => new Date(Date.UTC(2026, 1, 1, 10) + ms).toISOString();
    const line = (phase: string, entity: string, ms: number, attrs?: object) =>
      JSON.stringify({ type: 'lifecycle', phase, entity, at: at(ms), attrs });
    const batches = [
      [line('joined', 'n1', 5), line('joined', 'n2', 3), line('running', 'a1', 9, { total: 4 })],
      [line('joined', 'n1', 1), line('joined', 'n3', 3), line('running', 'a2', 2, { total: 7 })],
    ];
    await ingestBatches(database, runId, batches);
    type Kept = { phase: string; entities: number; attrs_total: number | null; firsts: string };
    const kept = async () =>
      (
        (await database.db.execute(sql`select phase, entities, attrs_total,
          encode(firsts, 'hex') as firsts from lifecycle_phases order by phase`)) as unknown as {
          rows: Kept[];
        }
      ).rows;
    const byIngest = await kept();
    expect(byIngest.map((r) => [r.phase, r.entities, r.attrs_total])).toEqual([
      ['joined', 3, null],
      ['running', 2, 7],
    ]);

    await database.db.execute(sql`truncate lifecycle_firsts, lifecycle_phases`);
    const backfill = readFileSync(
      join(migrationsFolder, '0009_lifecycle_phases_backfill.sql'),
      'utf8',
    );
    for (const statement of backfill.split('--> statement-breakpoint')) {
      await database.db.execute(sql.raw(statement));
    }
    expect(await kept()).toEqual(byIngest);
    // joined: n1 (1 ms, its second report), n2 and n3 (3 ms); float8 microseconds, big-endian.
    const joined = byIngest.find((r) => r.phase === 'joined') as Kept;
    expect(joined.entities).toBe(3);
    const us = (ms: number) => {
      const b = Buffer.alloc(8);
      b.writeDoubleBE((Date.UTC(2026, 1, 1, 10) + ms) * 1000);
      return b.toString('hex');
    };
    expect(joined.firsts).toBe(us(1) + us(3) + us(3));
    await database.close();
  }, 240_000); // An embedded database of its own, migrated from nothing: slow on a busy machine.
});
