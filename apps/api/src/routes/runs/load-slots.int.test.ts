// The stages view's slots kept at ingest: uploads at once lose no counts, a refused upload
// changes nothing, and what the view serves equals hdr-histogram-js on the raw values.
import { apiError, importResultsResponse, type LoadStages, loadStages } from '@meshbench/schema';
import { build } from 'hdr-histogram-js';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { type WrittenLog, writeHdrLog } from '../../ingest/results/hdr-log.test-fixtures.ts';
import { resultsRepository } from '../../repositories/results.repository.ts';
import { backends, createRun, useServer } from '../../test/harness.ts';

const START = Date.UTC(2026, 10, 26, 13, 0, 0);

/** Each slot's requests and percentiles by hdr-histogram-js over the raw values sent in it. */
function expectSlots(view: LoadStages, logs: WrittenLog[], ps: number[]) {
  const intervals = logs[0]?.intervals ?? [];
  expect(view.series.map((s) => s.startMs)).toEqual(intervals.map((i) => i.startMs));
  intervals.forEach((_, k) => {
    const values = logs.flatMap((l) => l.intervals[k]?.values ?? []);
    const direct = build({ bitBucketSize: 64, numberOfSignificantValueDigits: 3 });
    for (const v of values) direct.recordValue(v);
    const slot = view.series[k];
    expect(slot?.requests).toBe(values.length);
    expect(slot?.generators).toBe(logs.length);
    expect(slot?.percentiles.map((q) => [q.p, q.ms])).toEqual(
      ps.map((p) => [p, direct.getValueAtPercentile(p) / 1000]),
    );
  });
}

describe.each(backends)('kept stage slots on $name', (backend) => {
  const server = useServer(backend);
  const post = (runId: string, body: string, generator: string) =>
    server.json(
      `/runs/${runId}/results?mode=both&connections=8&targetRps=2000&generator=${generator}`,
      { method: 'POST', headers: { 'content-type': 'text/plain' }, body },
      z.union([importResultsResponse, apiError]),
    );
  const stages = async (runId: string, percentiles: string) =>
    loadStages.parse(
      (
        await server.json(
          `/runs/${runId}/results/stages?percentiles=${percentiles}`,
          {},
          loadStages,
        )
      ).body,
    );
  const log = (seed: number) =>
    writeHdrLog({ seed, startMs: START, intervals: 8, perInterval: 400, medianUs: 800 * seed });

  it('four uploads at once into one run lose no counts', async () => {
    const run = await createRun(server);
    const logs = [21, 22, 23, 24].map(log);
    const posted = await Promise.all(logs.map((l, g) => post(run.id, l.text, `g${g}`)));
    expect(posted.map((p) => p.status)).toEqual([201, 201, 201, 201]);
    // Kept percentiles (no histogram read) and others (the slots' histograms decoded).
    expectSlots(await stages(run.id, '50,99'), logs, [50, 99]);
    expectSlots(await stages(run.id, '97.5,50,99.99'), logs, [97.5, 50, 99.99]);
  });

  it('uploads at once into the same slots equal the same uploads one after another', async () => {
    // The per-run advisory lock (lockSlots) is what makes this hold on Postgres: without it
    // each transaction reads the slots before the others commit and writes its own sum over
    // theirs. A read merges from the intervals when the slots do not hold every one, so the
    // kept rows are checked first, as the uploads left them.
    const logs = [51, 52, 53, 54].map((seed) =>
      writeHdrLog({ seed, startMs: START, intervals: 30, perInterval: 200, medianUs: 700 * seed }),
    );
    const together = await createRun(server);
    const posted = await Promise.all(logs.map((l, g) => post(together.id, l.text, `g${g}`)));
    expect(posted.map((p) => p.status)).toEqual([201, 201, 201, 201]);
    const inTurn = await createRun(server);
    for (const [g, l] of logs.entries()) {
      expect((await post(inTurn.id, l.text, `g${g}`)).status).toBe(201);
    }
    const repository = resultsRepository(server.app.database.db);
    const kept = async (runId: string) => {
      const found = await repository.slotsOfRun(runId, [50, 99]);
      // null: the kept slots do not hold every interval of the run.
      expect(found).not.toBeNull();
      return found?.slots.map(({ merger: _merger, ...slot }) => slot);
    };
    const keptTogether = await kept(together.id);
    expect(keptTogether?.map((s) => [s.requests, s.generators])).toEqual(
      logs[0]?.intervals.map(() => [800, 4]),
    );
    expect(keptTogether).toEqual(await kept(inTurn.id));
    // A step lists its generators in the order their uploads were stored.
    const byName = (view: LoadStages) => ({
      ...view,
      stages: view.stages.map((s) => ({
        ...s,
        generators: [...s.generators].sort((a, b) => a.name.localeCompare(b.name)),
      })),
    });
    for (const ps of ['50,99', '75,99.9']) {
      const view = await stages(together.id, ps);
      expect(view.series.map((s) => [s.requests, s.generators])).toEqual(
        logs[0]?.intervals.map(() => [800, 4]),
      );
      expect(byName(view)).toEqual(byName(await stages(inTurn.id, ps)));
    }
    expectSlots(await stages(together.id, '50,99'), logs, [50, 99]);
  });

  it('a refused upload changes no slot', async () => {
    const run = await createRun(server);
    const first = log(31);
    expect((await post(run.id, first.text, 'g0')).status).toBe(201);
    const before = [await stages(run.id, '50,99'), await stages(run.id, '75,99.9')];
    const lines = log(32).text.split('\n');
    const last = lines.findLastIndex((l) => /^\d/.test(l));
    const fields = (lines[last] as string).split(',');
    lines[last] = [...fields.slice(0, 3), 'HIST!!'].join(',');
    const refused = await post(run.id, lines.join('\n'), 'g1');
    expect(refused.status).toBe(400);
    expect([await stages(run.id, '50,99'), await stages(run.id, '75,99.9')]).toEqual(before);
    expectSlots(before[0] as LoadStages, [first], [50, 99]);
  });

  it('a later upload on another interval length re-grids the run', async () => {
    const run = await createRun(server);
    const one = writeHdrLog({ seed: 41, startMs: START, intervals: 2, perInterval: 100 });
    expect((await post(run.id, one.text, 'g0')).status).toBe(201);
    expect((await stages(run.id, '50')).intervalMs).toBe(1000);
    // Five 2 s intervals outnumber two 1 s ones: the grid becomes 2 s, every slot rebuilt.
    const two = writeHdrLog({
      seed: 42,
      startMs: START,
      intervals: 5,
      perInterval: 100,
      intervalMs: 2000,
    });
    expect((await post(run.id, two.text, 'g1')).status).toBe(201);
    const view = await stages(run.id, '50,99,90');
    expect(view.intervalMs).toBe(2000);
    // Slot START: both of g0's intervals (starts 0 s and 1 s round to 0 s and 2 s: 1 s is
    // half way, rounded up) -- so START holds g0's first and g1's first.
    const firstSlot = [...(one.intervals[0]?.values ?? []), ...(two.intervals[0]?.values ?? [])];
    const direct = build({ bitBucketSize: 64, numberOfSignificantValueDigits: 3 });
    for (const v of firstSlot) direct.recordValue(v);
    expect(view.series[0]?.requests).toBe(200);
    expect(view.series[0]?.percentiles.map((q) => q.ms)).toEqual(
      [50, 99, 90].map((p) => direct.getValueAtPercentile(p) / 1000),
    );
    expect(view.series.reduce((n, s) => n + s.requests, 0)).toBe(700);
  });
});
