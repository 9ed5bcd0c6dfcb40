import { randomUUID } from 'node:crypto';
import { type Database, migrateDatabase } from '@meshbench/db';
import type { SeriesKind } from '@meshbench/schema';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lifecycleRepository } from '../repositories/lifecycle.repository.ts';
import { metricsRepository, type PointToStore } from '../repositories/metrics.repository.ts';
import { backends } from '../test/harness.ts';
import { ingestBatches } from '../test/ingest-batches.ts';
import { phaseBuckets, seriesBuckets } from './timeline.service.ts';

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

describe.each(backends)('timeline bucketing of repository reads on $name', (backend) => {
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
    const buckets = await seriesBuckets(metrics, runId, list, axis);
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
      // The increase from 10 s to 20 s: its max is the stream's new max (30 > 20, so it fell
      // in this interval); its min is not known, only bounded below by the stream's min (1).
      { bucket: 2, value: 5, min: null, max: 30 },
      { bucket: 3, value: 3, min: 2, max: 5 },
    ]);
    expect(by('u')).toEqual([
      { bucket: 0, value: 3, min: 3, max: 5 },
      { bucket: 1, value: 7, min: 7, max: 7 },
    ]);
    expect(by('set')).toEqual([{ bucket: 0, value: 5, min: 3, max: 5 }]);

    // Only the series asked for, and nothing for an id that is not a series.
    const only = await seriesBuckets(
      metrics,
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
    const kept = lifecycleRepository(database.db);
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
    const phases = phaseBuckets(await kept.phases(runId), axis, [10], [50, 90, 99, 100]);
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
    expect(await kept.lastEventMs(runId)).toBe(s(62)); // the repeat is the last event
  });
});
