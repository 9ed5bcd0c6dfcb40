// A GET only reads: every read route of a populated project (a finished run with clock
// reports, two stages, incidents, lifecycle, a result file with intervals, a gate, a late
// batch after its finish that leaves its kept facts stale, and an unfinished run) answers
// from a server whose database connection is read only (`default_transaction_read_only`:
// any INSERT, UPDATE or DELETE fails), with no 5xx and the same answers as a server that may
// write. On the embedded database the one connection is made read only for the reads.
import { randomBytes } from 'node:crypto';
import { type Database, openDatabase } from '@meshbench/db';
import { project } from '@meshbench/schema';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../app.ts';
import { loadConfig } from '../config/env.ts';
import { writeHdrLog } from '../ingest/results/hdr-log.test-fixtures.ts';
import {
  backends,
  createRun,
  jsonBody,
  ndjson,
  postEvents,
  TEST_ADMIN_TOKEN,
  useServer,
} from '../test/harness.ts';

const T0_MS = Date.parse('2026-02-01T10:00:00.000Z');
const at = (ms: number) => new Date(T0_MS + ms).toISOString();
const obs = (proxy: string, node: string, ms: number, stage?: string) => ({
  type: 'observation',
  change: 'c1',
  proxy,
  node,
  at: at(ms),
  ...(stage ? { stage } : {}),
});

const events = [
  { type: 'change', id: 'c1', kind: 'endpoint', target: 'hey', action: 'delete', at: at(0) },
  { type: 'clock', node: 'a', at: at(0), offsetMs: 20, errorMs: 0.5 },
  { type: 'clock', node: 'b', at: at(0), offsetMs: -12, errorMs: 1 },
  ...Array.from({ length: 30 }, (_, i) => obs(`p${i}`, 'abc'[i % 3] as string, 10 + 37 * i)),
  ...Array.from({ length: 30 }, (_, i) =>
    obs(`p${i}`, 'abc'[i % 3] as string, 5 + 31 * i, 'received'),
  ),
  { type: 'incident', kind: 'reconnect', node: 'c', proxy: 'p2', from: at(50), to: at(900) },
  { type: 'lifecycle', phase: 'joined', entity: 'node-a', node: 'a', at: at(-5000) },
  { type: 'lifecycle', phase: 'joined', entity: 'node-b', node: 'b', at: at(-3000) },
];
const late = Array.from({ length: 5 }, (_, i) => obs(`q${i}`, 'b', 2000 + 100 * i));

describe.each(backends)('GETs never write, on $name', (backend) => {
  const server = useServer(backend);
  let reader: Awaited<ReturnType<typeof buildApp>>;
  let readerUrl = '';
  let readerDatabase: Database | undefined;
  /** Makes the reader's database read only (the embedded one: its one connection). */
  let readOnly = async (_on: boolean) => {};

  beforeAll(async () => {
    const primary = server.app.database;
    let database: Database = primary;
    if (backend.name !== 'embedded') {
      // Every session of this pool starts read only; the boot's migration check runs on the
      // primary (it takes a lock and may create its journal table).
      const url = new URL(process.env.DATABASE_URL as string);
      url.searchParams.set('options', '-c default_transaction_read_only=on');
      const ro = await openDatabase({ url: url.toString(), poolSize: 2 });
      readerDatabase = ro;
      let booting = true;
      database = {
        kind: ro.kind,
        db: ro.db,
        copyOut: (q) => ro.copyOut(q),
        transaction: (fn) => (booting ? primary.transaction(fn) : ro.transaction(fn)),
        copyThenCommit: (table, columns, source, options) =>
          (booting ? primary : ro).copyThenCommit(table, columns, source, options),
        close: () => ro.close(),
      };
      readOnly = async () => {
        booting = false;
      };
    } else {
      readOnly = async (on) => {
        await primary.db.execute(
          sql.raw(`set session characteristics as transaction ${on ? 'read only' : 'read write'}`),
        );
      };
    }
    const config = loadConfig({
      STATSD_PORT: '0',
      MESHBENCH_LOG_LEVEL: 'silent',
      MESHBENCH_ADMIN_TOKEN: TEST_ADMIN_TOKEN,
      MESHBENCH_ALERTS_RECHECK_MS: '0',
    });
    reader = await buildApp(config, { database, logger: false, inMemory: true });
    await reader.listen({ port: 0, host: '127.0.0.1' });
    const address = reader.server.address();
    readerUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  });
  afterAll(async () => {
    await readOnly(false);
    await reader?.close();
    await readerDatabase?.close();
  });

  it('answers every read route of a populated project from a read-only connection, as a writer would', async () => {
    const name = `read-only-${randomBytes(5).toString('hex')}`;
    const p = await server.json('/projects', jsonBody({ name, visibility: 'public' }), project);
    const projectId = p.body.id;
    const threshold = jsonBody({ benchmark: name, rule: 'within1s<95%' });
    expect((await server.json(`/projects/${projectId}/thresholds`, threshold)).status).toBe(201);
    const runIn = () =>
      createRun(server, {
        project: projectId,
        benchmark: name,
        scenario: 's',
        startedAt: at(-10_000),
      });
    const finished = await runIn();
    expect((await postEvents(server, finished.id, ndjson(events))).status).toBe(200);
    const log = writeHdrLog({
      seed: 7,
      startMs: T0_MS,
      intervals: 6,
      perInterval: 200,
      medianUs: 900,
    });
    const uploaded = await server.api(
      `/runs/${finished.id}/results?mode=both&connections=8&targetRps=2000&generator=g0`,
      { method: 'POST', headers: { 'content-type': 'text/plain' }, body: log.text },
    );
    expect(uploaded.status).toBe(201);
    const patch = { method: 'PATCH', headers: { 'content-type': 'application/json' }, body: '{}' };
    expect((await server.json(`/runs/${finished.id}`, patch)).status).toBe(200);
    // A second finished run, then a late batch to the first: its kept facts are stale now.
    const second = await runIn();
    expect((await postEvents(server, second.id, ndjson(events))).status).toBe(200);
    expect((await server.json(`/runs/${second.id}`, patch)).status).toBe(200);
    expect((await postEvents(server, finished.id, ndjson(late))).status).toBe(200);
    const running = await runIn();
    expect((await postEvents(server, running.id, ndjson(events))).status).toBe(200);
    // The corrections those batches started in the writer are done before reading (its
    // corrected reads wait for them).
    for (const r of [finished, running])
      await server.api(`/runs/${r.id}/changes/c1/propagation?clock=corrected`);
    const report = await server.json(
      '/reports',
      jsonBody({ runs: [finished.id, second.id], title: name }),
    );
    expect(report.status).toBe(201);
    const slug = (report.body as { slug: string }).slug;

    const perRun = (id: string) => [
      `/runs/${id}`,
      `/runs/${id}/changes`,
      `/runs/${id}/propagation`,
      `/runs/${id}/changes/c1/propagation?percentiles=50,90,99`,
      `/runs/${id}/changes/c1/propagation?percentiles=50,99&clock=corrected`,
      `/runs/${id}/changes/c1/propagation?stage=received&clock=corrected&format=csv`,
      `/runs/${id}/changes/c1/stages/gap?from=received&to=applied&percentiles=50,99`,
      `/runs/${id}/changes/c1/tail?thresholdMs=500`,
      `/runs/${id}/changes/c1/tail?thresholdMs=500&clock=raw&format=csv`,
      `/runs/${id}/changes/c1/tail/attribution?thresholdMs=500`,
      `/runs/${id}/changes/c1/perfetto`,
      `/runs/${id}/clocks`,
      `/runs/${id}/events`,
      `/runs/${id}/gate`,
      `/runs/${id}/load-gate`,
      `/runs/${id}/significance?metric=p99`,
      `/runs/${id}/results`,
      `/runs/${id}/results/stages?percentiles=50,99`,
      `/runs/${id}/results/stages?percentiles=75,99.9`,
      `/runs/${id}/series`,
      `/runs/${id}/timeline`,
    ];
    const ids = [finished.id, second.id, running.id];
    const paths = [
      ...ids.flatMap(perRun),
      `/runs?benchmark=${name}`,
      '/runs/facets',
      `/runs/headlines?ids=${ids.join(',')}`,
      `/history?benchmark=${name}&metric=p50`,
      `/history?benchmark=${name}&metric=p99&clock=corrected`,
      `/compare/comparability?runs=${ids.join(',')}`,
      `/compare?runs=${ids.join(',')}&bins=60&scale=log`,
      `/projects/${projectId}/alerts`,
      `/projects/${projectId}/thresholds`,
      `/projects/${projectId}/detection`,
      `/reports/${slug}`,
      '/projects',
    ];
    const get = async (base: string, path: string) => {
      const res = await fetch(`${base}/api/v1${path}`, {
        headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` },
      });
      return { status: res.status, body: await res.text() };
    };

    await readOnly(true);
    const fromReader: { status: number; body: string }[] = [];
    try {
      for (const path of paths) fromReader.push(await get(readerUrl, path));
    } finally {
      await readOnly(false);
    }
    const failed = fromReader
      .map((a, i) => ({ path: paths[i], ...a }))
      .filter((a) => a.status >= 500);
    expect(failed).toEqual([]);
    // Most of them answered at all (a route whose query is wrong answers 4xx to both).
    expect(fromReader.filter((a) => a.status === 200).length).toBeGreaterThan(paths.length / 2);

    for (const [i, path] of paths.entries()) {
      const fromWriter = await get(server.url, path);
      expect({ path, ...fromReader[i] }).toEqual({ path, ...fromWriter });
    }
  });
});
