import { randomUUID } from 'node:crypto';
import { type Database, DEFAULT_PROJECT_ID, migrateDatabase } from '@meshbench/db';
import type { SeriesKind } from '@meshbench/schema';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backends } from '../test/harness.ts';
import { ingestBatches } from '../test/ingest-batches.ts';
import { metricsRepository, type PointToStore } from './metrics.repository.ts';

const T0 = Date.UTC(2026, 1, 1, 10, 0, 0);
const s = (seconds: number) => T0 + seconds * 1000;
// 60 s in buckets of 10 s: 0..6, the last one holding the axis' end.
const axis = { fromMs: T0, toMs: s(60), bucketMs: 10_000, buckets: 7 };

const point = (
  seriesId: string,
  tMs: number,
  values: Partial<PointToStore>,
): Omit<PointToStore, 'runId'> => ({
  seriesId,
  tMs,
  intervalMs: 1000,
  startAtMs: null,
  replica: 'a',
  count: 1,
  sum: null,
  min: null,
  max: null,
  last: null,
  lastAtMs: null,
  members: null,
  sketch: null,
  quantiles: null,
  ...values,
});

describe.each(backends)('metrics repository timeline reads on $name', (backend) => {
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

  it('buckets every class of series from rows read by a binary COPY', async () => {
    const metrics = metricsRepository(database);
    const runId = await newRun();
    const names = ['c', 'g', 'cum', 'h', 'u', 'set'] as const;
    const kinds = ['counter', 'gauge', 'counter', 'histogram', 'updowncounter', 'set'];
    const ids = await metrics.ensureSeries(
      names.map((name, i) => ({
        runId,
        source: 'otlp',
        name,
        kind: kinds[i] as string,
        unit: null,
        tags: {},
        keyHash: name,
      })),
    );
    const id = Object.fromEntries(
      names.map((n) => [n, ids.get(`${runId}|${n}`) as string]),
    ) as Record<(typeof names)[number], string>;
    const rows = [
      // Counter: an interval that began before the run, two replicas at 0 s.
      point(id.c, s(-3), { intervalMs: 5000, sum: 1 }),
      point(id.c, s(0), { sum: 3 }),
      point(id.c, s(0), { sum: 4, replica: 'b' }),
      point(id.c, s(5), { sum: 2 }),
      point(id.c, s(12), { sum: 5 }),
      // Gauge: replica b's later sample wins at 1 s; the 3 s row is the bucket's last.
      point(id.g, s(1), { last: 5, min: 4, max: 9, lastAtMs: s(1.5) }),
      point(id.g, s(1), { last: 6, lastAtMs: s(1.8), replica: 'b' }),
      point(id.g, s(3), { last: 2 }),
      point(id.g, s(60), { last: 8 }),
      point(id.g, s(61), { last: 99 }),
      // Cumulative sum: a stream begun before the run (its first point is the reference,
      // then a reset) and one begun inside it (its first point counts whole).
      point(id.cum, s(2), { startAtMs: s(-60), last: 100 }),
      point(id.cum, s(4), { startAtMs: s(-60), last: 110 }),
      point(id.cum, s(15), { startAtMs: s(-60), last: 5 }),
      point(id.cum, s(21), { startAtMs: s(20), last: 7 }),
      point(id.cum, s(25), { startAtMs: s(20), last: 9 }),
      // Cumulative histogram begun at the run's start, with a reset at 30 s; one delta row.
      point(id.h, s(10), { startAtMs: s(0), count: 4, sum: 40, min: 1, max: 20 }),
      point(id.h, s(20), { startAtMs: s(0), count: 10, sum: 70, min: 1, max: 30 }),
      point(id.h, s(30), { startAtMs: s(0), count: 3, sum: 9, min: 2, max: 5 }),
      point(id.h, s(11), { count: 2, sum: 4, min: 1, max: 3 }),
      // Delta up-down counter: levels 5, 3, 7.
      point(id.u, s(1), { sum: 5 }),
      point(id.u, s(2), { sum: -2 }),
      point(id.u, s(11), { sum: 4 }),
      // Set: distinct members per interval.
      point(id.set, s(1), { last: 3 }),
      point(id.set, s(2), { last: 5 }),
    ];
    await metrics.appendPoints(rows.map((r) => ({ ...r, runId })));

    const list = names.map((name, i) => ({ id: id[name] as string, kind: kinds[i] as SeriesKind }));
    const buckets = await metrics.seriesBuckets(runId, list, axis);
    const by = (name: (typeof names)[number]) => buckets.get(id[name]);
    expect(by('c')).toEqual([
      { bucket: 0, value: 10, min: 1, max: 7 },
      { bucket: 1, value: 5, min: 5, max: 5 },
    ]);
    expect(by('g')).toEqual([
      { bucket: 0, value: 2, min: 2, max: 9 },
      { bucket: 6, value: 8, min: 8, max: 8 },
    ]);
    expect(by('cum')).toEqual([
      { bucket: 0, value: 10, min: 0, max: 10 },
      { bucket: 1, value: 5, min: 5, max: 5 },
      { bucket: 2, value: 9, min: 2, max: 7 },
    ]);
    expect(by('h')).toEqual([
      { bucket: 1, value: 44 / 6, min: 1, max: 20 },
      { bucket: 2, value: 5, min: 1, max: 30 },
      { bucket: 3, value: 3, min: 2, max: 5 },
    ]);
    expect(by('u')).toEqual([
      { bucket: 0, value: 3, min: 3, max: 5 },
      { bucket: 1, value: 7, min: 7, max: 7 },
    ]);
    expect(by('set')).toEqual([{ bucket: 0, value: 5, min: 3, max: 5 }]);

    // Only the series asked for, and nothing for an id that is not a series.
    const only = await metrics.seriesBuckets(
      runId,
      [
        { id: id.g as string, kind: 'gauge' },
        { id: 'nonsense', kind: 'gauge' },
      ],
      axis,
    );
    expect([...only.keys()]).toEqual([id.g]);
  });

  it('counts first arrivals per bucket and reads them at the ranks of every candidate total', async () => {
    const metrics = metricsRepository(database);
    const runId = await newRun();
    const lifecycle = (phase: string, entity: string, at: number, attrs?: object) =>
      JSON.stringify({
        type: 'lifecycle',
        phase,
        entity,
        at: new Date(s(at)).toISOString(),
        attrs,
      });
    // Three batches, as a runner sends them: n0 first at 30 s, then earlier, before the
    // origin (first bucket; it counts once, at -5 s); n3 after the axis (last bucket), then
    // again (a repeat).
    const batches = [
      [
        lifecycle('joined', 'n0', 30),
        lifecycle('joined', 'n1', 12, { total: 8 }),
        lifecycle('registered', 'r0', 3, { total: 'many' }),
      ],
      [
        lifecycle('joined', 'n0', -5),
        lifecycle('joined', 'n2', 12.5),
        lifecycle('joined', 'n3', 61),
      ],
      [lifecycle('joined', 'n3', 62, { total: 6 })],
    ];
    await ingestBatches(database, runId, batches);
    const phases = await metrics.lifecycleBuckets(runId, axis, [10], [50, 90, 99, 100]);
    // joined: 4 entities; ranks for total 8 (4, 8), 4 seen (2, 4), 10 (5, 9, 10): only those
    // up to 4 exist. registered: 1 seen (rank 1); its non-numeric total is ignored.
    expect(phases).toEqual([
      {
        phase: 'joined',
        observed: 4,
        attrsTotal: 8,
        arrivals: new Map([
          [0, 1],
          [1, 2],
          [6, 1],
        ]),
        atRank: new Map([
          [2, s(12)],
          [4, s(61)],
        ]),
      },
      {
        phase: 'registered',
        observed: 1,
        attrsTotal: null,
        arrivals: new Map([[0, 1]]),
        atRank: new Map([[1, s(3)]]),
      },
    ]);
    expect(await metrics.lastLifecycleMs(runId)).toBe(s(62)); // the repeat is the last event
  });
});

// Forgetting held points is global to the database, so it is tested where no other test
// file holds any: the embedded database each file opens for itself.
describe('held metric points', () => {
  let database: Database;
  beforeAll(async () => {
    database = await (backends[0] as (typeof backends)[number]).open();
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
    expect(backends[0]?.name).toBe('embedded');
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
