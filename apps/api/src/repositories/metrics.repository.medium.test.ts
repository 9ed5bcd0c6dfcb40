import { randomUUID } from 'node:crypto';
import { type Database, DEFAULT_PROJECT_ID, migrateDatabase } from '@meshbench/db';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backends } from '../test/harness.ts';
import { metricsRepository } from './metrics.repository.ts';

const T0 = Date.UTC(2026, 1, 1, 10, 0, 0);
const s = (seconds: number) => T0 + seconds * 1000;

describe.each(backends)('metrics repository series and points on $name', (backend) => {
  let database: Database;
  beforeAll(async () => {
    database = await backend.open();
    await migrateDatabase(database);
  });
  afterAll(async () => database?.close());

  async function newRun(): Promise<string> {
    const id = randomUUID();
    await database.db.execute(sql`insert into runs (id, slug, benchmark, scenario, mesh_name, started_at)
      values (${id}, ${`repo-${id}`}, 'b', 's', 'consul', ${new Date(T0).toISOString()})`);
    return id;
  }

  it("gives the loser of a race to create a series the winner's id", async () => {
    const metrics = metricsRepository(database);
    const runId = await newRun();
    const series = {
      runId,
      source: 'otlp',
      name: 'raced',
      kind: 'counter',
      unit: null,
      tags: {},
      keyHash: 'raced',
    };
    if (database.kind === 'embedded') {
      // One connection: no two requests are ever inside ensureSeries at once.
      const [a, b] = await Promise.all([
        metrics.ensureSeries([series]),
        metrics.ensureSeries([series]),
      ]);
      expect(a.get(`${runId}|raced`)).toBe(b.get(`${runId}|raced`));
      return;
    }
    // The winner's insert is in, not committed, when the loser's statement begins: the
    // loser's insert waits for it, then does nothing.
    let commit: () => void = () => {};
    let inserted: () => void = () => {};
    const insertedYet = new Promise<void>((r) => {
      inserted = r;
    });
    const winner = database.transaction(async (tx) => {
      await tx.db.execute(sql`insert into metric_series (run_id, source, name, kind, tags, key_hash)
        values (${runId}::uuid, 'otlp', 'raced', 'counter', '{}'::jsonb, 'raced')`);
      inserted();
      await new Promise<void>((r) => {
        commit = r;
      });
    });
    await insertedYet;
    const loser = metrics.ensureSeries([series]);
    await new Promise((r) => setTimeout(r, 300));
    commit();
    await winner;
    const ids = await loser;
    const stored = await database.db.execute(
      sql`select id::text as id from metric_series where run_id = ${runId}::uuid`,
    );
    const rows = (stored as unknown as { rows: { id: string }[] }).rows;
    expect(rows).toHaveLength(1);
    expect(ids.get(`${runId}|raced`)).toBe(rows[0]?.id);
  });

  it('claims a held point for a new run while an export creates its series at the same time', async () => {
    if (database.kind === 'embedded') return; // one connection: nothing runs at the same time
    const metrics = metricsRepository(database);
    const runId = await newRun();
    const environment = `claim-race-${runId}`;
    await database.db.execute(
      sql`update runs set environment = ${environment} where id = ${runId}::uuid`,
    );
    const tMs = s(10);
    await metrics.holdPoints(
      [
        {
          record: {
            source: 'otlp',
            name: 'claimed',
            kind: 'gauge',
            unit: null,
            tags: {},
            runRef: null,
            env: environment,
            tMs,
            intervalMs: 0,
            startAtMs: null,
            count: 1,
            sum: null,
            min: 3,
            max: 3,
            last: 3,
            lastAtMs: tMs,
            members: null,
            sketch: null,
            quantiles: null,
            lastExact: null,
          },
          keyHash: 'claimed',
          tags: {},
        },
      ],
      null,
      'r',
    );
    // An export of the same series into the run is in, not committed, as the claim begins.
    let commit: () => void = () => {};
    let inserted: () => void = () => {};
    const insertedYet = new Promise<void>((r) => {
      inserted = r;
    });
    const exporter = database.transaction(async (tx) => {
      await tx.db.execute(sql`insert into metric_series (run_id, source, name, kind, tags, key_hash)
        values (${runId}::uuid, 'otlp', 'claimed', 'gauge', '{}'::jsonb, 'claimed')`);
      inserted();
      await new Promise<void>((r) => {
        commit = r;
      });
    });
    await insertedYet;
    const claim = metrics.claimHeld({
      id: runId,
      slug: `repo-${runId}`,
      projectId: DEFAULT_PROJECT_ID,
      environment,
      startedMs: T0,
      finishedMs: null,
      topology: {} as never,
    });
    await new Promise((r) => setTimeout(r, 300));
    commit();
    await exporter;
    expect(await claim).toBe(1);
    const stored = await database.db.execute(
      sql`select count(*)::int as n from metric_points where run_id = ${runId}::uuid`,
    );
    expect((stored as unknown as { rows: { n: number }[] }).rows[0]?.n).toBe(1);
    const left = await database.db.execute(
      sql`select count(*)::int as n from unmatched_points where environment = ${environment}`,
    );
    expect((left as unknown as { rows: { n: number }[] }).rows[0]?.n).toBe(0);
  });
});

// Forgetting held points is global to the database, so it is tested where no other test
// file holds any: the embedded database each file opens for itself.
const embedded = backends.find((b) => b.name === 'embedded');

// On an embedded database of its own: it counts every held point there is.
describe.skipIf(!embedded)('held metric points', () => {
  let database: Database;
  beforeAll(async () => {
    database = await (embedded as (typeof backends)[number]).open();
    await migrateDatabase(database);
  });
  afterAll(async () => database?.close());

  const record = (name: string, tMs: number) =>
    ({
      source: 'otlp',
      name,
      kind: 'gauge',
      unit: null,
      tags: {},
      runRef: null,
      env: 'held-env',
      tMs,
      intervalMs: 0,
      startAtMs: null,
      count: 1,
      sum: null,
      min: 1,
      max: 1,
      last: 1,
      lastAtMs: tMs,
      members: null,
      sketch: null,
      quantiles: null,
      lastExact: null,
    }) as const;
  const held = async () =>
    Number(
      (
        (await database.db.execute(
          sql`select count(*)::int as n from unmatched_points`,
        )) as unknown as {
          rows: { n: number }[];
        }
      ).rows[0]?.n,
    );

  it('forgets those past their time, and the oldest beyond the bound', async () => {
    const metrics = metricsRepository(database);
    const hold = (names: string[]) =>
      metrics.holdPoints(
        names.map((name, i) => ({ record: record(name, T0 + i), keyHash: name, tags: {} })),
        null,
        'r',
      );
    await hold(['a', 'b', 'c']);
    await database.db.execute(
      sql`update unmatched_points set received_at = now() - interval '2 hours'`,
    );
    await hold(['d', 'e', 'f', 'g']);
    expect(await held()).toBe(7);
    expect(await metrics.expireHeld(3_600_000, 1_000)).toBe(3); // older than an hour
    expect(await held()).toBe(4);
    expect(await metrics.expireHeld(3_600_000, 1)).toBe(3); // the bound: 1 kept
    expect(await held()).toBe(1);
  });
});
