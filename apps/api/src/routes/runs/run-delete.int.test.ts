// DELETE /api/v1/runs/{id}: a run with events (changes, observations, clock reports,
// lifecycle rows), StatsD and OTLP metric points, a result file, kept facts and a shared
// report is deleted by its project's token; afterwards no table with a run_id column has a
// row of it (counted through information_schema, not the catalog query the delete uses),
// the other run is untouched, the report answers what it answered before, and the deletion
// is kept in run_deletions. Another project's token is refused and deletes nothing.
import {
  createdReport,
  createdToken,
  finishedRun,
  project as projectAnswer,
  report,
  run as runAnswer,
} from '@meshbench/schema';
import { sql } from 'drizzle-orm';
import StatsD from 'hot-shots';
import { describe, expect, it } from 'vitest';
import { backends, jsonBody, ndjson, postEvents, useServer } from '../../test/harness.ts';
import { until } from '../../test/metrics-harness.ts';
import { rowsOfRun } from '../../test/rows-of-run.ts';

const T0_MS = Date.parse('2026-02-01T10:00:00.000Z');
const at = (ms: number) => new Date(T0_MS + ms).toISOString();

const EVENTS = [
  { type: 'change', id: 'c1', kind: 'endpoint', target: 'hey', action: 'add', at: at(0) },
  { type: 'clock', node: 'a', at: at(-1000), offsetMs: 20, errorMs: 0.5 },
  { type: 'observation', change: 'c1', proxy: 'p1', node: 'a', at: at(120) },
  { type: 'observation', change: 'c1', proxy: 'p2', node: 'a', at: at(220) },
  { type: 'lifecycle', phase: 'joined', entity: 'node-0', at: at(500) },
];

/** A Fortio result file: the smallest one the results route stores. */
const FORTIO = JSON.stringify({
  RunType: 'HTTP',
  Labels: 'delete',
  StartTime: at(0),
  RequestedQPS: '100',
  RequestedDuration: '10s',
  ActualQPS: 99.9,
  ActualDuration: 10_000_000_000,
  NumThreads: 4,
  DurationHistogram: {
    Count: 2,
    Min: 0.001,
    Max: 0.002,
    Sum: 0.003,
    Avg: 0.0015,
    StdDev: 0.0005,
    Data: [{ Start: 0.001, End: 0.002, Percent: 100, Count: 2 }],
    Percentiles: [{ Percentile: 50, Value: 0.0015 }],
  },
  RetCodes: { '200': 2 },
});

const otlp = (runId: string) =>
  JSON.stringify({
    resourceMetrics: [
      {
        resource: { attributes: [{ key: 'meshbench.run', value: { stringValue: runId } }] },
        scopeMetrics: [
          {
            metrics: [
              {
                name: 'delete.gauge',
                gauge: { dataPoints: [{ timeUnixNano: String(Date.now() * 1e6), asDouble: 1 }] },
              },
            ],
          },
        ],
      },
    ],
  });

/** The tables the fixture must fill for the run, so the test deletes something in each. */
const FILLED = [
  'changes',
  'clock_reports',
  'event_batches',
  'lifecycle_events',
  'load_results',
  'metric_points',
  'metric_series',
  'observations',
  'result_uploads',
  'run_facts',
];

const countOf = (cell: string | undefined) => Number((cell ?? '0:').split(':')[0]);

describe.each(backends)('run deletion on $name', (backend) => {
  const server = useServer(backend, { MESHBENCH_READ_CACHE_MS: '60000' }, { statsd: true });
  const as = (token: string, init: RequestInit = {}): RequestInit => {
    const headers = new Headers(init.headers);
    headers.set('authorization', `Bearer ${token}`);
    return { ...init, headers };
  };

  async function project() {
    const name = `delete-${Date.now()}-${Math.random().toString(36).slice(2)}`;
    const p = await server.json(
      '/projects',
      jsonBody({ name, visibility: 'private' }),
      projectAnswer,
    );
    const t = await server.json(
      `/projects/${p.body.id}/tokens`,
      jsonBody({ name: 'delete' }),
      createdToken,
    );
    return { id: p.body.id, token: t.body.token };
  }

  async function fullRun(projectId: string, token: string) {
    const created = await server.json(
      '/runs',
      as(
        token,
        jsonBody({
          benchmark: 'delete',
          scenario: `s-${Math.random().toString(36).slice(2)}`,
          mesh: { name: 'consul' },
          project: projectId,
          startedAt: new Date(Date.now() - 60_000).toISOString(),
        }),
      ),
      runAnswer,
    );
    expect(created.status).toBe(201);
    const run = created.body;
    expect(
      (await postEvents(server, run.id, ndjson(EVENTS), { authorization: `Bearer ${token}` }))
        .status,
    ).toBe(200);
    const results = await server.api(
      `/runs/${run.id}/results?format=fortio`,
      as(token, { method: 'POST', headers: { 'content-type': 'application/json' }, body: FORTIO }),
    );
    expect(results.status).toBe(201);
    const otlpAnswer = await fetch(
      `${server.url}/v1/metrics`,
      as(token, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: otlp(run.id),
      }),
    );
    expect(otlpAnswer.status).toBe(200);
    const statsd = new StatsD({
      host: '127.0.0.1',
      port: server.udpPort,
      protocol: 'udp',
      globalTags: { run: run.id },
    });
    statsd.gauge('delete.statsd', 5);
    await new Promise<void>((resolve) => statsd.close(() => resolve()));
    await until(async () => {
      await server.app.statsd.flush();
      const series = await server.app.database.db.execute(
        sql`select 1 from metric_series where run_id = ${run.id} and name = 'delete.statsd'`,
      );
      return (series as unknown as { rows: unknown[] }).rows.length > 0;
    });
    const patched = await server.json(
      `/runs/${run.id}`,
      as(token, { method: 'PATCH', headers: { 'content-type': 'application/json' }, body: '{}' }),
      finishedRun,
    );
    expect(patched.status).toBe(200);
    return run;
  }

  it('deletes every row of the run, keeps the other run and the frozen report, and audits it', async () => {
    const own = await project();
    const other = await project();
    const victim = await fullRun(own.id, own.token);
    const bystander = await fullRun(own.id, own.token);
    const shared = await server.json(
      '/reports',
      as(own.token, jsonBody({ runs: [victim.id] })),
      createdReport,
    );
    expect(shared.status).toBe(201);
    const frozen = await server.json(`/reports/${shared.body.slug}`, {}, report);
    expect(frozen.status).toBe(200);

    const before = await rowsOfRun(server.app.database, victim.id);
    for (const table of FILLED) expect(countOf(before[table]), table).toBeGreaterThan(0);
    const bystanderBefore = await rowsOfRun(server.app.database, bystander.id);
    // Read (and so cached) before the delete: the delete must empty the read cache.
    expect((await server.json(`/runs/${victim.id}`, as(own.token), runAnswer)).status).toBe(200);

    // Another project's token: refused, nothing deleted.
    const refused = await server.api(`/runs/${victim.id}`, as(other.token, { method: 'DELETE' }));
    expect(refused.status).toBe(403);
    expect(await rowsOfRun(server.app.database, victim.id)).toEqual(before);

    // By slug, with the project's token.
    const deleted = await server.api(`/runs/${victim.slug}`, as(own.token, { method: 'DELETE' }));
    expect(deleted.status).toBe(204);
    expect(await deleted.text()).toBe('');

    const after = await rowsOfRun(server.app.database, victim.id);
    expect(Object.keys(after).sort()).toEqual(Object.keys(before).sort());
    for (const [table, cell] of Object.entries(after)) {
      if (table === 'runs') expect(cell, table).toBe('');
      else expect(countOf(cell), table).toBe(0);
    }
    expect(await rowsOfRun(server.app.database, bystander.id)).toEqual(bystanderBefore);

    expect((await server.json(`/runs/${victim.id}`, as(own.token))).status).toBe(404);
    expect(
      (await server.api(`/runs/${victim.id}`, as(own.token, { method: 'DELETE' }))).status,
    ).toBe(404);
    expect(await server.json(`/reports/${shared.body.slug}`, {}, report)).toEqual(frozen);

    // The report of a deleted run is still its project's to delete, not any token's.
    const reportPath = `/reports/${shared.body.slug}`;
    expect((await server.api(reportPath, as(other.token, { method: 'DELETE' }))).status).toBe(403);
    expect((await server.api(reportPath, as(own.token, { method: 'DELETE' }))).status).toBe(204);

    const audit = (await server.app.database.db.execute(
      sql`select project_id, slug, deleted_by, rows from run_deletions where deleted_run_id = ${victim.id}`,
    )) as unknown as {
      rows: {
        project_id: string;
        slug: string;
        deleted_by: string;
        rows: Record<string, number>;
      }[];
    };
    expect(audit.rows).toHaveLength(1);
    const [entry] = audit.rows;
    expect(entry?.project_id).toBe(own.id);
    expect(entry?.slug).toBe(victim.slug);
    expect(entry?.deleted_by).toMatch(/^token:/);
    const expectedRows = Object.fromEntries(
      Object.entries(before).map(([table, cell]) => [table, table === 'runs' ? 1 : countOf(cell)]),
    );
    expect(entry?.rows).toEqual(expectedRows);
  });

  it('lets the admin delete any run; an unknown run is 404 and deletes nothing', async () => {
    const own = await project();
    const run = await fullRun(own.id, own.token);
    expect((await server.api('/runs/no-such-run', { method: 'DELETE' })).status).toBe(404);
    expect((await server.api(`/runs/${run.id}`, { method: 'DELETE' })).status).toBe(204);
    const after = await rowsOfRun(server.app.database, run.id);
    for (const [table, cell] of Object.entries(after)) {
      if (table === 'runs') expect(cell, table).toBe('');
      else expect(countOf(cell), table).toBe(0);
    }
    const audit = (await server.app.database.db.execute(
      sql`select deleted_by from run_deletions where deleted_run_id = ${run.id}`,
    )) as unknown as { rows: { deleted_by: string }[] };
    expect(audit.rows).toEqual([{ deleted_by: 'admin' }]);
  });
});
