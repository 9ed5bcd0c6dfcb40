// The upload paths' counters: a batch stored, the same batch retried, a batch rejected, a
// result file stored and one rejected, as GET /ingest/stats and /metrics report them.
import { apiError, importResultsResponse, ingestStats } from '@meshbench/schema';
import { describe, expect, it } from 'vitest';
import { checkAnswer } from '../test/answer.ts';
import { backends, createRun, jsonBody, ndjson, useServer } from '../test/harness.ts';

describe('upload counters', () => {
  const server = useServer(backends[0]!);
  const stats = async () => (await server.json('/ingest/stats', {}, ingestStats)).body;

  it('counts batches stored, retried and rejected, and keeps the last rejection', async () => {
    const run = await createRun(server);
    const before = await stats();
    const batch = ndjson([
      {
        type: 'change',
        id: 'c1',
        kind: 'endpoint',
        target: 'hey',
        action: 'delete',
        at: '2026-02-01T10:00:00Z',
        expected: 2,
      },
      { type: 'observation', change: 'c1', proxy: 'p1', node: 'n1', at: '2026-02-01T10:00:01Z' },
      { type: 'observation', change: 'c1', proxy: 'p2', node: 'n2', at: '2026-02-01T10:00:02Z' },
    ]);
    const post = (body: string, key: string) =>
      server.api(`/runs/${run.id}/events`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-ndjson', 'idempotency-key': key },
        body,
      });
    expect((await post(batch, 'k1')).status).toBe(200);
    expect((await post(batch, 'k1')).status).toBe(200); // a retry
    const bad = await post('{"type":"observation","change":"c1"}', 'k2');
    expect(bad.status).toBe(400);
    const badMessage = checkAnswer('events', bad.status, await bad.json(), apiError).message;

    const after = await stats();
    expect(after.events.stored - before.events.stored).toBe(1);
    expect(after.events.items - before.events.items).toBe(3);
    expect(after.events.duplicates - before.events.duplicates).toBe(1);
    expect(after.events.rejected - before.events.rejected).toBe(1);
    expect(after.events.lastRejection).toMatchObject({ status: 400, message: badMessage });

    const fortio = JSON.stringify({
      Labels: 'e2e',
      StartTime: '2026-02-01T10:00:00Z',
      RequestedQPS: '100',
      ActualQPS: 99.5,
      ActualDuration: 60e9,
      NumThreads: 4,
      DurationHistogram: {
        Count: 10,
        Min: 0.001,
        Max: 0.005,
        Avg: 0.002,
        Percentiles: [{ Percentile: 50, Value: 0.002 }],
      },
      RetCodes: { 200: 10 },
    });
    const file = await server.api(`/runs/${run.id}/results`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: fortio,
    });
    expect(file.status).toBe(201);
    const imported = checkAnswer(
      'results',
      file.status,
      await file.json(),
      importResultsResponse,
    ).imported;
    const notAFile = await server.api(`/runs/${run.id}/results`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
      body: 'not a result file',
    });
    expect(notAFile.status).toBeGreaterThanOrEqual(400);
    expect(notAFile.status).toBeLessThan(500);

    const last = await stats();
    expect(last.results.stored - after.results.stored).toBe(1);
    expect(last.results.items - after.results.items).toBe(imported);
    expect(last.results.rejected - after.results.rejected).toBe(1);
    expect(last.results.lastRejection?.status).toBe(notAFile.status);

    const text = await (await fetch(`${server.url}/metrics`)).text();
    const metric = (name: string) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1]);
    expect(metric('meshbench_events_rejected_total')).toBe(last.events.rejected);
    expect(metric('meshbench_events_events_stored_total')).toBe(last.events.items);
    expect(metric('meshbench_results_stored_total')).toBe(last.results.stored);
  });

  it('does not count reads, nor other posts', async () => {
    const before = await stats();
    await server.json(
      '/runs',
      jsonBody({ benchmark: 'x', scenario: 'y', mesh: { name: 'consul' } }),
    );
    await server.json('/runs');
    const after = await stats();
    expect(after).toEqual(before);
  });
});
