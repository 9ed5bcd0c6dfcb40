// Raw data retention with real timestamps: runs whose start, finish and storing are 200 days
// old, in a project that keeps raw rows 90 days. A sweep drops the raw rows (observations,
// incidents, lifecycle events, metric points) of the old done runs only, and
// keeps every other row of them byte for byte: the propagation read and the History answer
// what they answered before. Runs pinned as a baseline, in a report, still running, failed,
// recent, or of a project without retention keep everything. The worker drops them on its own on the
// replica holding the lease.
import {
  apiError,
  createdReport,
  createdToken,
  finishedRun,
  history,
  project as projectAnswer,
  projectRetention,
  propagation,
  run as runAnswer,
  threshold,
} from '@meshbench/schema';
import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import {
  backends,
  jsonBody,
  ndjson,
  postEvents,
  type TestServer,
  useServer,
} from '../../test/harness.ts';
import { rowsOfRun } from '../../test/rows-of-run.ts';

const DAY_MS = 86_400_000;
const RAW = ['incidents', 'lifecycle_events', 'metric_points', 'observations'];
const countOf = (cell: string | undefined) => Number((cell ?? '0:').split(':')[0]);

const as = (token: string, init: RequestInit = {}): RequestInit => {
  const headers = new Headers(init.headers);
  headers.set('authorization', `Bearer ${token}`);
  return { ...init, headers };
};
const put = (body: unknown): RequestInit => ({
  method: 'PUT',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify(body),
});

async function newProject(server: TestServer) {
  const name = `retention-${Date.now()}-${Math.random().toString(36).slice(2)}`;
  const p = await server.json('/projects', jsonBody({ name }), projectAnswer);
  expect(p.status).toBe(201);
  const t = await server.json(
    `/projects/${p.body.id}/tokens`,
    jsonBody({ name: 'r' }),
    createdToken,
  );
  return { id: p.body.id, name, token: t.body.token };
}

/**
 * A run started `ageDays` ago with every kind of raw row, finished an hour later (or left
 * running, or failed), and stored `ageDays` ago (created_at set back, as an old run's is).
 */
async function oldRun(
  server: TestServer,
  project: { id: string; token: string },
  ageDays: number,
  end: 'finished' | 'failed' | 'running' = 'finished',
) {
  const t0 = Date.now() - ageDays * DAY_MS;
  const at = (ms: number) => new Date(t0 + ms).toISOString();
  const created = await server.json(
    '/runs',
    as(
      project.token,
      jsonBody({
        benchmark: 'retention',
        scenario: 'nightly',
        mesh: { name: 'consul' },
        project: project.id,
        startedAt: at(0),
      }),
    ),
    runAnswer,
  );
  expect(created.status).toBe(201);
  const run = created.body;
  const events = [
    { type: 'change', id: 'c1', kind: 'endpoint', target: 'hey', action: 'add', at: at(1000) },
    { type: 'clock', node: 'n1', at: at(500), offsetMs: 2, errorMs: 0.5 },
    ...[130, 250, 410, 90, 700].map((ms, i) => ({
      type: 'observation',
      change: 'c1',
      proxy: `p${i}`,
      node: 'n1',
      at: at(1000 + ms),
    })),
    { type: 'incident', kind: 'reconnect', node: 'n1', proxy: 'p4', from: at(1200), to: at(1600) },
    { type: 'lifecycle', phase: 'joined', entity: 'n1', at: at(200) },
    { type: 'lifecycle', phase: 'running', entity: 'a1', at: at(300) },
  ];
  const posted = await postEvents(server, run.id, ndjson(events), {
    authorization: `Bearer ${project.token}`,
  });
  expect(posted.status).toBe(200);
  const otlp = await fetch(
    `${server.url}/v1/metrics`,
    as(project.token, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        resourceMetrics: [
          {
            resource: { attributes: [{ key: 'meshbench.run', value: { stringValue: run.id } }] },
            scopeMetrics: [
              {
                metrics: [
                  {
                    name: 'control_plane.cpu',
                    gauge: {
                      dataPoints: [1, 2, 3].map((s) => ({
                        timeUnixNano: `${BigInt(t0 + s * 1000) * 1_000_000n}`,
                        asDouble: s / 10,
                      })),
                    },
                  },
                ],
              },
            ],
          },
        ],
      }),
    }),
  );
  expect(otlp.status).toBe(200);
  if (end !== 'running') {
    const patched = await server.json(
      `/runs/${run.id}`,
      as(project.token, {
        method: 'PATCH',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ finishedAt: at(3_600_000), status: end }),
      }),
      finishedRun,
    );
    expect(patched.status).toBe(200);
  }
  await server.app.database.db.execute(
    sql`update runs set created_at = ${new Date(t0).toISOString()}::timestamptz where id = ${run.id}`,
  );
  return run;
}

describe.each(backends)('raw data retention on $name', (backend) => {
  const server = useServer(backend);

  it('drops the raw rows of old done runs and keeps their summaries, history and the pinned runs', async () => {
    const own = await newProject(server);
    const keepsAll = await newProject(server);
    const set = await server.json(
      `/projects/${own.id}/retention`,
      as(own.token, put({ rawRetentionDays: 90 })),
      projectRetention,
    );
    expect(set.status).toBe(200);
    expect(set.body).toEqual({ projectId: own.id, rawRetentionDays: 90, rawDroppedRuns: 0 });

    const aged = await oldRun(server, own, 200);
    const agedFailed = await oldRun(server, own, 120, 'failed');
    const baseline = await oldRun(server, own, 200);
    const shared = await oldRun(server, own, 200);
    const stillRunning = await oldRun(server, own, 200, 'running');
    const clockNotKept = await oldRun(server, own, 200);
    const recent = await oldRun(server, own, 80);
    const elsewhere = await oldRun(server, keepsAll, 200);

    const pinned = await server.json(
      `/projects/${own.id}/thresholds`,
      as(own.token, jsonBody({ benchmark: 'retention', rule: 'p99>+10%', baseline: baseline.id })),
      threshold,
    );
    expect(pinned.status).toBe(201);
    const report = await server.json(
      '/reports',
      as(own.token, jsonBody({ runs: [shared.id] })),
      createdReport,
    );
    expect(report.status).toBe(201);

    const db = server.app.database;
    const propagationOf = (id: string) =>
      server.json(
        `/runs/${id}/changes/c1/propagation?percentiles=50,90,99`,
        as(own.token),
        propagation,
      );
    // Today a read keeps the clock-corrected summary (the finish may keep it instead).
    expect((await propagationOf(clockNotKept.id)).status).toBe(200);
    const propagationBefore = await propagationOf(aged.id);
    expect(propagationBefore.status).toBe(200);
    expect(propagationBefore.body.count).toBe(5);
    const historyOf = () =>
      server.json(
        `/history?benchmark=retention&project=${own.id}&metric=p99`,
        as(own.token),
        history,
      );
    const historyBefore = await historyOf();
    expect(historyBefore.status).toBe(200);
    // The History shows every run of the benchmark, whatever its status.
    expect(historyBefore.body.points.map((p) => p.runId).sort()).toEqual(
      [
        aged.id,
        agedFailed.id,
        baseline.id,
        shared.id,
        stillRunning.id,
        clockNotKept.id,
        recent.id,
      ].sort(),
    );

    // Taken after the reads: today a read may still keep what it computed (clock-corrected
    // summaries), which is no row of retention's.
    // A run whose corrected summary is not kept: computing it later needs its observations.
    await db.db.execute(
      sql`delete from change_summaries where run_id = ${clockNotKept.id} and clock = 'corrected'`,
    );
    const runs = [
      aged,
      agedFailed,
      baseline,
      shared,
      stillRunning,
      clockNotKept,
      recent,
      elsewhere,
    ];
    const before = new Map(
      await Promise.all(runs.map(async (r) => [r.id, await rowsOfRun(db, r.id)] as const)),
    );
    for (const table of RAW)
      expect(countOf(before.get(aged.id)?.[table]), table).toBeGreaterThan(0);

    const dropped = await server.app.services.retention.sweep({ projectId: own.id });
    expect(dropped.map((d) => d.runId)).toEqual([aged.id]);
    for (const d of dropped)
      for (const table of RAW) expect(d.rows[table], table).toBeGreaterThan(0);
    // The project without retention is never swept, whoever asks.
    expect(await server.app.services.retention.sweep({ projectId: keepsAll.id })).toEqual([]);

    for (const run of [aged]) {
      const after = await rowsOfRun(db, run.id);
      const was = before.get(run.id) as Record<string, string>;
      for (const [table, cell] of Object.entries(after)) {
        if (RAW.includes(table)) expect(countOf(cell), `${table} of ${run.id}`).toBe(0);
        else if (table !== 'runs') expect(cell, `${table} of ${run.id}`).toBe(was[table]);
      }
    }
    // A failed run's History values are computed from its rows at each read: it keeps them.
    for (const run of [
      agedFailed,
      baseline,
      shared,
      stillRunning,
      clockNotKept,
      recent,
      elsewhere,
    ]) {
      const after = await rowsOfRun(db, run.id);
      expect(after, `run ${run.id} kept`).toEqual(before.get(run.id));
    }
    // Reads of what was kept answer as before.
    expect(await propagationOf(aged.id)).toEqual(propagationBefore);
    expect(await historyOf()).toEqual(historyBefore);

    const read = await server.json(
      `/projects/${own.id}/retention`,
      as(own.token),
      projectRetention,
    );
    expect(read.body).toEqual({ projectId: own.id, rawRetentionDays: 90, rawDroppedRuns: 1 });
    // Nothing left to drop.
    expect(await server.app.services.retention.sweep({ projectId: own.id })).toEqual([]);
  });

  it('refuses a bad setting naming the field, and another project, changing nothing', async () => {
    const own = await newProject(server);
    const other = await newProject(server);
    expect(
      (
        await server.json(
          `/projects/${own.id}/retention`,
          as(own.token, put({ rawRetentionDays: 30 })),
          projectRetention,
        )
      ).status,
    ).toBe(200);
    for (const body of [
      { rawRetentionDays: 0 },
      { rawRetentionDays: 2.5 },
      { rawRetentionDays: '30' },
      {},
    ]) {
      const refused = await server.json(
        `/projects/${own.id}/retention`,
        as(own.token, put(body)),
        apiError,
      );
      expect(refused.status, JSON.stringify(body)).toBe(400);
      expect(refused.body.message, JSON.stringify(body)).toContain('rawRetentionDays');
    }
    const unknown = await server.json(
      `/projects/${own.id}/retention`,
      as(own.token, put({ rawRetentionDays: 30, rawDays: 3 })),
      apiError,
    );
    expect(unknown.status).toBe(400);
    expect(unknown.body.message).toContain('rawDays');
    const forbidden = await server.json(
      `/projects/${own.id}/retention`,
      as(other.token, put({ rawRetentionDays: 1 })),
      apiError,
    );
    expect(forbidden.status).toBe(403);
    const read = await server.json(
      `/projects/${own.id}/retention`,
      as(own.token),
      projectRetention,
    );
    expect(read.body.rawRetentionDays).toBe(30);
    // null keeps raw rows for ever again.
    const cleared = await server.json(
      `/projects/${own.id}/retention`,
      as(own.token, put({ rawRetentionDays: null })),
      projectRetention,
    );
    expect(cleared.body.rawRetentionDays).toBeNull();
  });
});

describe.each(backends)('the retention worker on $name', (backend) => {
  const server = useServer(backend, { MESHBENCH_RETENTION_MS: '200' });

  it("drops an old run's raw rows by itself, on the replica holding the lease", async () => {
    const own = await newProject(server);
    const set = await server.json(
      `/projects/${own.id}/retention`,
      as(own.token, put({ rawRetentionDays: 30 })),
      projectRetention,
    );
    expect(set.status).toBe(200);
    const run = await oldRun(server, own, 45);
    // Its clock-corrected summary kept (today by a read; the finish may keep it instead).
    expect(
      (await server.json(`/runs/${run.id}/changes/c1/propagation`, as(own.token), propagation))
        .status,
    ).toBe(200);
    const deadline = Date.now() + 20_000;
    let dropped = false;
    while (!dropped && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      const read = await server.json(
        `/projects/${own.id}/retention`,
        as(own.token),
        projectRetention,
      );
      dropped = read.body.rawDroppedRuns === 1;
    }
    expect(dropped).toBe(true);
    const rows = await rowsOfRun(server.app.database, run.id);
    for (const table of RAW) expect(countOf(rows[table]), table).toBe(0);
    expect(countOf(rows.change_summaries)).toBeGreaterThan(0);
    const lease = await server.app.database.db.execute(
      sql`select holder from background_leases where job = 'raw-retention'`,
    );
    expect((lease as unknown as { rows: unknown[] }).rows).toHaveLength(1);
  }, 60_000);
});
