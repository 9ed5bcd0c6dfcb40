// Finishing a run is one resumable unit: a step that fails part way is kept as the run's
// next step, shown on the run, and done by the next PATCH or by the background worker. The
// failure is real: a trigger refuses the run's gate verdict (the gate step, the third of
// five: clock-correction, load-slots, gate, alerts, history), on each database.
import { randomBytes } from 'node:crypto';
import { apiError, finishedRun, project, run as runSchema } from '@meshbench/schema';
import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { rowsOf } from '../../repositories/result-rows.ts';
import {
  backends,
  createRun,
  jsonBody,
  ndjson,
  postEvents,
  useServer,
} from '../../test/harness.ts';

const T0_MS = Date.parse('2026-02-01T10:00:00.000Z');
const at = (ms: number) => new Date(T0_MS + ms).toISOString();

/** A change seen by two proxies on two nodes, one of them with a clock report. */
const events = [
  { type: 'change', id: 'c1', kind: 'endpoint', target: 'hey', action: 'delete', at: at(0) },
  { type: 'clock', node: 'a', at: at(0), offsetMs: 20, errorMs: 0.5 },
  { type: 'observation', change: 'c1', proxy: 'p1', node: 'a', at: at(120) },
  { type: 'observation', change: 'c1', proxy: 'p2', node: 'b', at: at(300) },
];

describe.each(backends)('finishing a run on $name', (backend) => {
  const server = useServer(backend);
  const db = () => server.app.database.db;

  /**
   * A run with clock reports in a project that holds it to a threshold, whose gate verdict
   * the database refuses to store until `heal`.
   */
  async function runThatFailsItsGate() {
    const name = `finish-${randomBytes(6).toString('hex')}`;
    const p = await server.json('/projects', jsonBody({ name, visibility: 'public' }), project);
    const threshold = jsonBody({ benchmark: name, rule: 'within1s<95%' });
    expect((await server.json(`/projects/${p.body.id}/thresholds`, threshold)).status).toBe(201);
    const run = await createRun(server, { project: p.body.id, benchmark: name });
    expect((await postEvents(server, run.id, ndjson(events))).status).toBe(200);
    const fn = `fail_${randomBytes(6).toString('hex')}`;
    await db().execute(
      sql.raw(`create function ${fn}() returns trigger language plpgsql as $$
        begin
          if new.run_id = '${run.id}' then raise exception 'refused by the test'; end if;
          return new;
        end $$`),
    );
    await db().execute(
      sql.raw(`create trigger ${fn} before insert or update on gate_results
        for each row execute function ${fn}()`),
    );
    const heal = async () => {
      await db().execute(sql.raw(`drop trigger ${fn} on gate_results`));
      await db().execute(sql.raw(`drop function ${fn}()`));
    };
    return { run, heal };
  }

  const patch = (runId: string) =>
    server.json(`/runs/${runId}`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ status: 'finished' }),
    });

  const getRun = (runId: string) => server.json(`/runs/${runId}`, {}, runSchema);

  /** What each step left in the database: corrected summaries, the gate, history facts. */
  async function kept(runId: string) {
    const count = async (query: ReturnType<typeof sql>) =>
      Number(rowsOf<{ n: unknown }>(await db().execute(query))[0]?.n ?? 0);
    return {
      corrected: await count(sql`select count(*) as n from change_summaries
        where run_id = ${runId} and clock = 'corrected'`),
      gate: await count(sql`select count(*) as n from gate_results where run_id = ${runId}`),
      history: await count(sql`select count(*) as n from run_facts
        where run_id = ${runId} and facts_version is not null`),
    };
  }

  it('shows the step that failed, and the next PATCH completes it', async () => {
    const { run, heal } = await runThatFailsItsGate();
    const failed = await server.json(
      `/runs/${run.id}`,
      {
        method: 'PATCH',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ status: 'finished' }),
      },
      apiError,
    );
    expect(failed.status).toBe(503);
    expect(failed.body.code).toBe('finish_incomplete');
    expect(failed.body.message).toContain('"gate"');

    // The run is finished; the step before the failed one is done, the later ones undone.
    const shown = await getRun(run.id);
    expect(shown.body.status).toBe('finished');
    expect(shown.body.finishing).toMatchObject({ step: 'gate', failures: 1 });
    expect(typeof shown.body.finishing?.failedAt).toBe('string');
    expect(await kept(run.id)).toEqual({ corrected: 1, gate: 0, history: 0 });

    // A second PATCH begins again from the first step, and stops at the same one.
    expect((await patch(run.id)).status).toBe(503);
    expect((await getRun(run.id)).body.finishing?.failures).toBe(1);

    await heal();
    const done = await server.json(
      `/runs/${run.id}`,
      {
        method: 'PATCH',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ status: 'finished' }),
      },
      finishedRun,
    );
    expect(done.status).toBe(200);
    // Both proxies within 1 s (100 %), not under the threshold's 95 %.
    expect(done.body.gate?.passed).toBe(true);
    expect(done.body.finishing).toBeUndefined();
    expect((await getRun(run.id)).body.finishing).toBeUndefined();
    expect(await kept(run.id)).toEqual({ corrected: 1, gate: 1, history: 1 });
  });

  it('is completed by the background worker from the step that failed', async () => {
    const { run, heal } = await runThatFailsItsGate();
    expect((await patch(run.id)).status).toBe(503);
    // While the step still fails, the worker counts another failure and moves on.
    await server.app.resumeFinishes({ settledMs: 0 });
    expect((await getRun(run.id)).body.finishing).toMatchObject({ step: 'gate', failures: 2 });
    expect(await kept(run.id)).toEqual({ corrected: 1, gate: 0, history: 0 });

    await heal();
    expect(await server.app.resumeFinishes({ settledMs: 0 })).toBeGreaterThanOrEqual(1);
    expect((await getRun(run.id)).body.finishing).toBeUndefined();
    expect(await kept(run.id)).toEqual({ corrected: 1, gate: 1, history: 1 });
  });

  it('leaves a finish in progress to itself', async () => {
    const { run, heal } = await runThatFailsItsGate();
    expect((await patch(run.id)).status).toBe(503);
    await heal();
    // Moved just now: a worker with a settle time of a minute does not take it.
    await server.app.resumeFinishes({ settledMs: 60_000 });
    expect((await getRun(run.id)).body.finishing?.step).toBe('gate');
  });

  it('says nothing of finishing once every step is done', async () => {
    const run = await createRun(server);
    const done = await patch(run.id);
    expect(done.status).toBe(200);
    expect(done.body).not.toHaveProperty('finishing');
    expect((await getRun(run.id)).body).not.toHaveProperty('finishing');
  });
});
