// An interval log's rows are stored ahead of its final transaction in bounded pieces
// (staged_result_uploads): no read sees them before that transaction commits, an upload
// refused after staging leaves none of its rows, and rows left by a stopped process go.
import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { writeHdrLog } from '../../ingest/results/hdr-log.test-fixtures.ts';
import { decodeResultFile, intervalResultRow } from '../../ingest/results/index.ts';
import { resultsRepository } from '../../repositories/results.repository.ts';
import { backends, createRun, useServer } from '../../test/harness.ts';

const START = Date.UTC(2026, 10, 27, 9, 0, 0);
const STEP = { mode: 'both', connections: 8, targetRps: 1000 } as const;

describe.each(backends)('staged interval logs on $name', (backend) => {
  // The uploads below go through the repository, not a write route: no route clears the
  // read cache, so every read must reach the database.
  const server = useServer(backend, { MESHBENCH_READ_CACHE_MS: '0' });
  const count = async (query: ReturnType<typeof sql>) => {
    const result = await server.app.database.db.execute(query);
    return Number((result as unknown as { rows: { n: unknown }[] }).rows[0]?.n);
  };
  /** A log's points as the upload stores them. */
  const pointsOf = async (intervals: number, seed: number) => {
    const log = writeHdrLog({ seed, startMs: START, intervals, perInterval: 50 });
    const decoded = await decodeResultFile(log.text, 'hdr-log', STEP);
    if (!decoded.intervals) throw new Error('not an interval format');
    return decoded.results.map(intervalResultRow);
  };
  /** What reads of the run see: its points, its slots, its intervals merged. */
  const seen = async (runId: string) => {
    const list = (await (
      await fetch(`${server.url}/api/v1/runs/${runId}/results`)
    ).json()) as unknown[];
    const stages = (await (
      await fetch(`${server.url}/api/v1/runs/${runId}/results/stages?percentiles=50,97.5`)
    ).json()) as { series: { requests: number }[] };
    return {
      points: list.length,
      slots: stages.series.length,
      requests: stages.series.reduce((n, s) => n + s.requests, 0),
    };
  };
  const upload = (key: string) => ({
    idempotencyKey: key,
    bodySha256: key,
    step: JSON.stringify(STEP),
    answer: {},
  });

  it('shows none of an upload until its final transaction, then all of it', async () => {
    const run = await createRun(server);
    const results = resultsRepository(server.app.database.db, server.app.database);
    expect(await results.insertIntervalPoints(run.id, 'hdr-log', await pointsOf(3, 1))).toBe(1);
    const before = await seen(run.id);
    expect(before).toEqual({ points: 1, slots: 3, requests: 150 });
    const during: (typeof before)[] = [];
    let pieces = 0;
    /** Rows in load_slots at the first piece after the final transaction. */
    let keptAtCommit: number | undefined;
    const kept = () =>
      count(sql`select count(*)::int as n from load_slots where run_id = ${run.id}`);
    const stored = await results.insertIntervalPoints(
      run.id,
      'hdr-log',
      await pointsOf(1200, 2),
      upload('a'),
      async () => {
        pieces++;
        if (keptAtCommit === undefined) {
          const now = await seen(run.id);
          if (now.points === 2) keptAtCommit = await kept();
        }
        if (pieces % 2 === 1) during.push(await seen(run.id));
      },
    );
    expect(stored).toBe(1);
    // Intervals and slots went in several pieces, reads answered between them.
    expect(pieces).toBeGreaterThan(2);
    // Before the final transaction reads saw the run as it was; after it (while its staged
    // slots are removed), all of the upload: never a part of it.
    const after = { points: 2, slots: 1200, requests: 150 + 1200 * 50 };
    const committed = during.findIndex((d) => d.points === 2);
    expect(committed === -1 ? during.length : committed).toBeGreaterThan(0);
    for (const [k, d] of during.entries())
      expect(d).toEqual(committed === -1 || k < committed ? before : after);
    expect(await seen(run.id)).toEqual(after);
    // The final transaction copied none of the 1,200 staged slots (one long statement on the
    // embedded database's one connection): they were moved after it, a piece at a time.
    expect(keptAtCommit).toBeLessThanOrEqual(3 + 1000);
    expect(await kept()).toBe(1200);
    expect(await count(sql`select count(*)::int as n from staged_result_uploads`)).toBe(0);
    expect(await count(sql`select count(*)::int as n from staged_load_slots`)).toBe(0);
  }, 300_000);

  it('an upload made visible whose slots are not all moved in: reads see each slot once, the next upload moves them first', async () => {
    const run = await createRun(server);
    const results = resultsRepository(server.app.database.db, server.app.database);
    // The first upload's process stops once it is visible, before its slots are moved in.
    let stopped!: () => void;
    const stop = new Promise<void>((r) => {
      stopped = r;
    });
    const firstUpload = results.insertIntervalPoints(
      run.id,
      'hdr-log',
      await pointsOf(1200, 6),
      upload('d'),
      async () => {
        if ((await seen(run.id)).points === 1) {
          stopped();
          await new Promise<void>(() => {});
        }
      },
    );
    await Promise.race([
      stop,
      firstUpload.then(() => {
        throw new Error('the upload ended without a piece after its final transaction');
      }),
    ]);
    const first = { points: 1, slots: 1200, requests: 1200 * 50 };
    expect(await seen(run.id)).toEqual(first);
    expect(
      await count(sql`select count(*)::int as n from staged_load_slots where run_id = ${run.id}`),
    ).toBeGreaterThan(0);
    // The same slots again: added into the first upload's.
    expect(
      await results.insertIntervalPoints(run.id, 'hdr-log', await pointsOf(1200, 7), upload('e')),
    ).toBe(1);
    expect(await seen(run.id)).toEqual({ points: 2, slots: 1200, requests: 2 * 1200 * 50 });
    expect(
      await count(sql`select count(*)::int as n from staged_load_slots where run_id = ${run.id}`),
    ).toBe(0);
  }, 300_000);

  it('leaves nothing of an upload refused after staging (its file stored meanwhile)', async () => {
    const run = await createRun(server);
    const results = resultsRepository(server.app.database.db, server.app.database);
    const points = await pointsOf(800, 3);
    expect(await results.insertIntervalPoints(run.id, 'hdr-log', points, upload('b'))).toBe(1);
    const intervals = await count(
      sql`select count(*)::int as n from load_intervals where run_id = ${run.id}`,
    );
    expect(await results.insertIntervalPoints(run.id, 'hdr-log', points, upload('b'))).toBeNull();
    expect(
      await count(sql`select count(*)::int as n from load_intervals where run_id = ${run.id}`),
    ).toBe(intervals);
    expect(await seen(run.id)).toEqual({ points: 1, slots: 800, requests: 800 * 50 });
    expect(await count(sql`select count(*)::int as n from staged_result_uploads`)).toBe(0);
    expect(await count(sql`select count(*)::int as n from staged_load_slots`)).toBe(0);
  }, 300_000);

  it('rows of an upload stopped part way are seen by no read, and go when staged uploads are discarded', async () => {
    // Another run's intervals, at the same places of its own partition (load_intervals is
    // partitioned by run, 0031): a discard by ctids alone would delete them too.
    const other = await createRun(server);
    const results = resultsRepository(server.app.database.db, server.app.database);
    expect(await results.insertIntervalPoints(other.id, 'hdr-log', await pointsOf(600, 6))).toBe(1);
    const otherRows = sql`select count(*)::int as n from load_intervals where run_id = ${other.id}`;
    const otherCount = await count(otherRows);
    expect(otherCount).toBeGreaterThan(500);
    const otherSeen = await seen(other.id);
    const run = await createRun(server);
    expect(await results.insertIntervalPoints(run.id, 'hdr-log', await pointsOf(3, 4))).toBe(1);
    const before = await seen(run.id);
    // A process stopped after staging some pieces: its `between` never returns.
    let pieces = 0;
    let stopped!: () => void;
    const stop = new Promise<void>((r) => {
      stopped = r;
    });
    void results.insertIntervalPoints(
      run.id,
      'hdr-log',
      await pointsOf(1200, 5),
      upload('c'),
      () => {
        pieces++;
        if (pieces === 2) {
          stopped();
          return new Promise<void>(() => {});
        }
        return Promise.resolve();
      },
    );
    await stop;
    expect(
      await count(sql`select count(*)::int as n from load_intervals where run_id = ${run.id}`),
    ).toBeGreaterThan(3);
    expect(await seen(run.id)).toEqual(before);
    expect(
      await count(sql`select count(*)::int as n from load_intervals a join load_intervals b
        on a.ctid = b.ctid where a.run_id = ${run.id} and b.run_id = ${other.id}`),
    ).toBeGreaterThan(3);
    expect(await server.app.services.results.discardStagedUploads(0)).toBeGreaterThanOrEqual(1);
    expect(
      await count(sql`select count(*)::int as n from load_intervals where run_id = ${run.id}`),
    ).toBe(3);
    expect(await count(otherRows)).toBe(otherCount);
    expect(await seen(other.id)).toEqual(otherSeen);
    expect(await count(sql`select count(*)::int as n from staged_result_uploads`)).toBe(0);
    expect(await count(sql`select count(*)::int as n from staged_load_slots`)).toBe(0);
    expect(await seen(run.id)).toEqual(before);
  }, 300_000);
});
