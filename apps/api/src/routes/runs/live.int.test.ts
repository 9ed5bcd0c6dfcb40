// GET /runs/{id}/live: a run watched while batches arrive. Late joiners get the current state
// first, Last-Event-ID resumes at the next state without repeating one, states come at most
// once a second, all viewers of a run share one watch, and the end event after the finish
// equals every stored view read afterwards, field for field.
import {
  apiError,
  changeList,
  LIVE_CHURN_QUERY,
  LIVE_MAX_CHANGES,
  loadStages,
  propagation,
  runPropagation,
  run as runSchema,
  seriesList,
  storedLoadResult,
  timeline,
} from '@meshbench/schema';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { backends, createRun, ndjson, postEvents, useServer } from '../../test/harness.ts';
import { openLive } from '../../test/live-reader.ts';

const T0 = Date.UTC(2026, 1, 1, 10, 0, 0);
const at = (ms: number) => new Date(T0 + ms).toISOString();

/** Nearest rank, written out here: the smallest x with at least p % of the values <= x. */
const rank = (sorted: number[], p: number) =>
  sorted[Math.max(1, Math.ceil((p / 100) * sorted.length)) - 1] as number;

/** Proxies from..to-1 applying c1, each at a latency of its own (a permutation of 1..100 ms). */
const observations = (from: number, to: number) =>
  Array.from({ length: to - from }, (_, k) => {
    const i = from + k;
    return {
      type: 'observation',
      change: 'c1',
      proxy: `p-${i}`,
      node: `n-${i % 7}`,
      at: at(((i * 37) % 100) + 1),
    };
  });
const latencies = (to: number) =>
  Array.from({ length: to }, (_, i) => ((i * 37) % 100) + 1).sort((a, b) => a - b);

describe.each(backends)('live run on $name', (backend) => {
  const server = useServer(backend, { MESHBENCH_LIVE_POLL_MS: '50' });

  it('streams states as batches land, resumes by Last-Event-ID and ends equal to the stored views', async () => {
    const run = await createRun(server, { startedAt: at(-60_000) });
    const first = await openLive(server.url, run.id);
    expect(first.status).toBe(200);
    const empty = await first.next((e) => e.type === 'state');
    expect(empty.state.open).toBe(true);
    expect(empty.state.changes).toEqual([]);
    expect(empty.id).toBe(String(empty.state.version));

    const change = {
      type: 'change',
      id: 'c1',
      kind: 'endpoint',
      target: 'hey',
      action: 'delete',
      at: at(0),
      expected: 100,
    };
    expect(
      (await postEvents(server, run.id, ndjson([change, ...observations(0, 60)]))).status,
    ).toBe(200);
    const sixty = await first.next((e) => e.state.propagation[0]?.summary?.count === 60);
    expect(Number(sixty.id)).toBeGreaterThan(Number(empty.id));
    const summary = sixty.state.propagation[0]?.summary;
    const sorted = latencies(60);
    for (const p of [50, 99]) {
      const got = summary?.percentiles.find((x) => x.p === p);
      // Exact, and marked so: the nearest rank of what is stored so far.
      expect(got).toMatchObject({ ms: rank(sorted, p), exact: true, method: 'raw' });
    }
    expect(summary?.missing).toBe(40);

    // A late joiner gets the current state at once; one watch serves both.
    const late = await openLive(server.url, run.id);
    const lateFirst = await late.next();
    expect(lateFirst.id).toBe(sixty.id);
    expect(lateFirst.state).toEqual(sixty.state);
    expect(server.app.live.stats.watches).toBeGreaterThanOrEqual(1);

    // A viewer resuming at the current version gets nothing until the data moves on.
    const resumed = await openLive(server.url, run.id, { lastEventId: Number(sixty.id) });
    await new Promise((r) => setTimeout(r, 300));
    expect(resumed.events).toEqual([]);
    expect((await postEvents(server, run.id, ndjson(observations(60, 100)))).status).toBe(200);
    const hundred = await resumed.next();
    expect(hundred.type).toBe('state');
    expect(hundred.state.propagation[0]?.summary?.count).toBe(100);
    expect(Number(hundred.id)).toBeGreaterThan(Number(sixty.id));
    expect(hundred.state.propagation[0]?.summary?.percentiles.find((x) => x.p === 99)?.ms).toBe(
      rank(latencies(100), 99),
    );
    // The first viewer saw the same state, no sooner than a second after its last one.
    const again = await first.next((e) => e.id === hundred.id);
    expect(again.state).toEqual(hundred.state);
    const states = first.events.filter((e) => e.type === 'state');
    for (let i = 1; i < states.length; i++)
      expect(
        (states[i] as { receivedAt: number }).receivedAt -
          (states[i - 1] as { receivedAt: number }).receivedAt,
      ).toBeGreaterThanOrEqual(900);

    // The finish ends every stream with the stored result.
    const finished = await server.json(`/runs/${run.id}`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(finished.status).toBe(200);
    const ends = await Promise.all(
      [first, late, resumed].map((r) => r.next((e) => e.type === 'end')),
    );
    await Promise.all([first.ended, late.ended, resumed.ended]);
    const end = ends[0];
    expect(end?.state.open).toBe(false);
    for (const e of ends) expect(e.state).toEqual(end?.state);

    const stored = {
      run: (await server.json(`/runs/${run.id}`, undefined, runSchema)).body,
      changes: (await server.json(`/runs/${run.id}/changes`, undefined, changeList)).body,
      // The run page's summary: its linear histogram ranged as the page draws it.
      summary: (
        await server.json(
          `/runs/${run.id}/changes/c1/propagation?range=auto`,
          undefined,
          propagation,
        )
      ).body,
      timeline: (await server.json(`/runs/${run.id}/timeline`, undefined, timeline)).body,
      series: (await server.json(`/runs/${run.id}/series`, undefined, seriesList)).body,
      results: (await server.json(`/runs/${run.id}/results`, undefined, z.array(storedLoadResult)))
        .body,
      stages: await server.json(`/runs/${run.id}/results/stages?percentiles=50,99`),
    };
    expect(end?.state.run).toEqual(stored.run);
    expect(end?.state.changes).toEqual(stored.changes);
    expect(end?.state.propagation).toEqual([{ change: 'c1', summary: stored.summary }]);
    // One change: no churn section.
    expect(end?.state.churn).toBeNull();
    expect(end?.state.timeline).toEqual(stored.timeline);
    expect(end?.state.series).toEqual(stored.series);
    expect(end?.state.results).toEqual(stored.results);
    expect(end?.state.stages).toEqual(
      stored.stages.status === 200 ? loadStages.parse(stored.stages.body) : null,
    );

    // Reconnecting with the end's id: 204, which stops an EventSource.
    const after = await fetch(`${server.url}/api/v1/runs/${run.id}/live`, {
      headers: { 'last-event-id': String(end?.id) },
    });
    expect(after.status).toBe(204);
    // Without it, a finished run's stream is its end event alone.
    const fresh = await openLive(server.url, run.id);
    const only = await fresh.next();
    expect(only.type).toBe('end');
    expect(only.state).toEqual(end?.state);
    await fresh.ended;
    // Every watch stopped with its run.
    expect(server.app.live.stats.watches).toBe(0);
  });

  it('streams every change of a churn run, pooled and per change, and ends equal to the stored views', async () => {
    const CHANGES = LIVE_MAX_CHANGES + 5;
    const PROXIES = 30;
    const run = await createRun(server, { startedAt: at(-60_000) });
    const reader = await openLive(server.url, run.id);
    await reader.next((e) => e.type === 'state');
    const ids = Array.from({ length: CHANGES }, (_, c) => `c${String(c).padStart(2, '0')}`);
    const lines = (half: 0 | 1) =>
      ids.flatMap((id, c) => [
        ...(half === 0
          ? [
              {
                type: 'change',
                id,
                kind: 'endpoint',
                target: 'hey',
                action: 'update',
                at: at(c * 1000),
                expected: PROXIES,
              },
            ]
          : []),
        ...Array.from({ length: PROXIES / 2 }, (_, k) => {
          const i = half * (PROXIES / 2) + k;
          return {
            type: 'observation',
            change: id,
            proxy: `p-${i}`,
            node: `n-${i % 3}`,
            at: at(c * 1000 + ((i * 7 + c * 13) % 90) + 1),
          };
        }),
      ]);
    expect((await postEvents(server, run.id, ndjson(lines(0)))).status).toBe(200);
    // Half of every change, the last ones (past the first 20) included.
    const half = await reader.next((e) => e.state.churn?.pooled.count === (CHANGES * PROXIES) / 2);
    expect(half.state.churn?.changes).toHaveLength(CHANGES);
    expect(half.state.churn?.changes.at(-1)?.count).toBe(PROXIES / 2);
    expect(half.state.changesLeftOut).toBe(CHANGES - LIVE_MAX_CHANGES);
    expect((await postEvents(server, run.id, ndjson(lines(1)))).status).toBe(200);
    const full = await reader.next(
      (e) => e.state.churn?.pooled.count === CHANGES * PROXIES,
      30_000,
    );
    expect(full.state.churn?.changes.every((r) => r.count === PROXIES)).toBe(true);

    const finished = await server.json(`/runs/${run.id}`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(finished.status).toBe(200);
    const end = await reader.next((e) => e.type === 'end', 30_000);
    await reader.ended;
    // The churn section exactly as the run page reads it stored.
    const query = new URLSearchParams(
      Object.entries(LIVE_CHURN_QUERY).map(([k, v]): [string, string] => [k, String(v)]),
    );
    const stored = await server.json(
      `/runs/${run.id}/propagation?${query}`,
      undefined,
      runPropagation,
    );
    expect(stored.status).toBe(200);
    expect(end.state.churn).toEqual(stored.body);
    expect(end.state.churn?.pooled.count).toBe(CHANGES * PROXIES);
    expect(end.state.changes).toEqual(
      (await server.json(`/runs/${run.id}/changes`, undefined, changeList)).body,
    );
    // Each change's own summary carried is its stored one.
    expect(end.state.propagation.map((p) => p.change)).toEqual(ids.slice(0, LIVE_MAX_CHANGES));
    for (const p of end.state.propagation)
      expect(p.summary).toEqual(
        (
          await server.json(
            `/runs/${run.id}/changes/${p.change}/propagation?range=auto`,
            undefined,
            propagation,
          )
        ).body,
      );
    expect(end.state.run).toEqual(
      (await server.json(`/runs/${run.id}`, undefined, runSchema)).body,
    );
  });

  it('answers 404 naming the run for one that does not exist', async () => {
    const { status, body } = await server.json(
      '/runs/00000000-0000-4000-8000-000000000000/live',
      undefined,
      apiError,
    );
    expect(status).toBe(404);
    expect(body.message).toContain('00000000-0000-4000-8000-000000000000');
  });
});
