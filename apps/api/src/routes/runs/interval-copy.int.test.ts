// An interval log's staged rows loaded by binary COPY (the API's way) are the rows the
// drizzle inserts stored before it: every column of load_intervals, load_slots and
// staged_load_slots the same (float8s at their edges too), and every read of the run the same.
import { tables } from '@meshbench/db';
import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { writeHdrLog } from '../../ingest/results/hdr-log.test-fixtures.ts';
import { decodeResultFile, intervalResultRow } from '../../ingest/results/index.ts';
import { STAGED_SLOT_COLUMNS, stagedSlotCopyRows } from '../../repositories/load-copy-rows.ts';
import { rowsOf } from '../../repositories/result-rows.ts';
import { resultsRepository } from '../../repositories/results.repository.ts';
import { backends, createRun, useServer } from '../../test/harness.ts';

const START = Date.UTC(2026, 10, 27, 9, 0, 0);
const STEP = { mode: 'both', connections: 8, targetRps: 1000 } as const;

/**
 * float8s at their edges: -0 (whose text, what an insert sends, is "0"), subnormals, the
 * largest, NaN and infinities, and ordinary ones.
 */
const REALS = [
  -0,
  5e-324,
  -2.2250738585072014e-308,
  Number.MAX_VALUE,
  Number.NaN,
  Number.POSITIVE_INFINITY,
  Number.NEGATIVE_INFINITY,
  0.1,
  1 + 2 ** -52,
  1764234000123.456,
];

describe.each(backends)('interval rows by COPY on $name', (backend) => {
  const server = useServer(backend, { MESHBENCH_READ_CACHE_MS: '0' });
  const query = async <T>(q: ReturnType<typeof sql>) =>
    rowsOf<T>(await server.app.database.db.execute(q));
  const pointsOf = async (intervals: number, seed: number) => {
    const log = writeHdrLog({ seed, startMs: START, intervals, perInterval: 50 });
    const decoded = await decodeResultFile(log.text, 'hdr-log', STEP);
    if (!decoded.intervals) throw new Error('not an interval format');
    return decoded.results.map(intervalResultRow);
  };
  /** Every stored column of a run's intervals and kept slots, reals as float8 text (exact). */
  const storedRows = async (runId: string) => ({
    intervals:
      await query(sql`select start_ms::float8::text as start, duration_ms::float8::text as duration,
        count::text, errors::text, min_ms::float8::text as min, max_ms::float8::text as max,
        encode(hdr, 'hex') as hdr
      from load_intervals where run_id = ${runId} order by start_ms, result_id`),
    slots:
      await query(sql`select start_ms::float8::text as start, interval_ms::float8::text as grid,
        unit, duration_ms::float8::text as duration, requests::text, errors::text, generators,
        min_ms::float8::text as min, max_ms::float8::text as max,
        rounding_ms::float8::text as rounding, percentiles::text, encode(hdr, 'hex') as hdr
      from load_slots where run_id = ${runId} order by start_ms`),
  });
  /** What reads of a run answer, without the ids that differ between runs. */
  const reads = async (runId: string) => {
    const get = async (path: string) =>
      JSON.stringify(await (await fetch(`${server.url}/api/v1/runs/${runId}${path}`)).json())
        .replaceAll(runId, 'RUN')
        .replace(/"id":\d+/g, '"id":0');
    return {
      results: await get('/results'),
      stages: await get('/results/stages?percentiles=50,90,99,99.9,97.5'),
    };
  };

  it('stores an interval log as the inserts did: every row and every read the same', async () => {
    const points = await pointsOf(700, 11);
    // Reals at the edges and counts of errors in the intervals' own columns.
    const first = points[0];
    if (!first) throw new Error('no point');
    for (const [k, v] of first.intervals.entries()) {
      v.minMs = REALS[k % REALS.length] as number;
      v.maxMs = REALS[(k + 3) % REALS.length] as number;
      v.errors = k % 3 === 0 ? null : k % 7;
    }
    const inserted = await createRun(server);
    const copied = await createRun(server);
    // The repository without COPY stores the rows as the API did before it.
    expect(
      await resultsRepository(server.app.database.db).insertIntervalPoints(
        inserted.id,
        'hdr-log',
        points,
      ),
    ).toBe(1);
    expect(
      await resultsRepository(server.app.database.db, server.app.database).insertIntervalPoints(
        copied.id,
        'hdr-log',
        points,
      ),
    ).toBe(1);
    const byInsert = await storedRows(inserted.id);
    expect(byInsert.intervals).toHaveLength(700);
    expect(byInsert.slots).toHaveLength(700);
    expect(await storedRows(copied.id)).toEqual(byInsert);
    expect(await reads(copied.id)).toEqual(await reads(inserted.id));
  }, 300_000);

  it('stages slot rows as the inserts did, reals at their edges too', async () => {
    // Two stages of a run, each held by its staged upload: invisible, never moved in.
    const runId = (await createRun(server)).id;
    await server.app.database.db.insert(tables.stagedResultUploads).values([
      { runId, id: 1, resultIds: [] },
      { runId, id: 2, resultIds: [] },
    ]);
    const rows = REALS.map((real, k) => ({
      startMs: START + k * 1000 + 0.5,
      intervalMs: 1000,
      unit: 'us',
      durationMs: real,
      requests: 2 ** 40 + k,
      errors: k % 2 === 0 ? null : k,
      generators: k + 1,
      minMs: k % 3 === 0 ? null : real,
      maxMs: REALS[(k + 1) % REALS.length] as number,
      roundingMs: real,
      percentiles: [{ p: 50, ms: 1.5, accuracy: { kind: 'hdr', digits: 3 } }],
      hdr: Uint8Array.from([k, 0, 255, 7]),
    }));
    await server.app.database.db.insert(tables.stagedLoadSlots).values(
      rows.map((r) => ({
        ...r,
        runId,
        stageId: 1,
        hdr: Buffer.from(r.hdr),
      })),
    );
    await server.app.database.copyThenCommit(
      'staged_load_slots',
      STAGED_SLOT_COLUMNS,
      stagedSlotCopyRows(runId, 2, rows),
      { format: 'binary' },
    );
    const staged = (stageId: number) =>
      query(sql`select start_ms::float8::text as start, interval_ms::float8::text as grid, unit,
          duration_ms::float8::text as duration, requests::text, errors::text, generators,
          min_ms::float8::text as min, max_ms::float8::text as max,
          rounding_ms::float8::text as rounding, percentiles::text, encode(hdr, 'hex') as hdr
        from staged_load_slots where run_id = ${runId} and stage_id = ${stageId} order by start_ms`);
    const byInsert = await staged(1);
    expect(byInsert).toHaveLength(REALS.length);
    expect(await staged(2)).toEqual(byInsert);
    await server.app.database.db.execute(
      sql`delete from staged_load_slots where run_id = ${runId}`,
    );
    await server.app.database.db.execute(
      sql`delete from staged_result_uploads where run_id = ${runId}`,
    );
  });
});
