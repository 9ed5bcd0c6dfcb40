// The achieved rate of a k6 --out json step is its requests over the span k6 measured (the
// first request's start to the last one's end), not over the whole epoch seconds its
// 1 s intervals cover; and a stage of scenarios that ran one after another is not the sum of
// their rates. Lines in the shapes of fixtures/k6-out-json.ndjson (grafana/k6
// internal/output/json: one http_reqs and one http_req_duration point per request, timed at
// its end); every expected number worked out by hand below.
import {
  importResultsResponse,
  loadStages,
  type StoredLoadResult,
  storedLoadResult,
} from '@meshbench/schema';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { backends, createRun, useServer } from '../../test/harness.ts';

const T0 = Date.UTC(2026, 10, 26, 12, 0, 0);
const METRICS = ['http_reqs', 'http_req_duration'].map((metric) =>
  JSON.stringify({
    type: 'Metric',
    data: {
      name: metric,
      type: metric === 'http_reqs' ? 'counter' : 'trend',
      contains: metric === 'http_reqs' ? 'default' : 'time',
      thresholds: [],
      submetrics: null,
    },
    metric,
  }),
);

/** A request of `scenario` that ended at T0 + endMs and took durationMs: its two lines. */
function request(scenario: string, endMs: number, durationMs: number): string[] {
  const time = new Date(T0 + endMs).toISOString().replace('Z', '000000Z');
  const tags = {
    expected_response: 'true',
    group: '',
    method: 'GET',
    name: 'http://echo.bench.svc:8080/',
    proto: 'HTTP/1.1',
    scenario,
    status: '200',
    url: 'http://echo.bench.svc:8080/',
  };
  return ['http_reqs', 'http_req_duration'].map((metric) =>
    JSON.stringify({
      type: 'Point',
      data: { time, value: metric === 'http_reqs' ? 1 : durationMs, tags },
      metric,
    }),
  );
}

/**
 * `count` requests of 250 ms ending every 250 ms from offsetMs + 750 ms: the first starts at
 * offsetMs + 500 ms, the last ends at offsetMs + 500 + 250 x count ms.
 */
function scenario(name: string, offsetMs: number, count: number): string[] {
  const lines: string[] = [];
  for (let k = 0; k < count; k++) lines.push(...request(name, offsetMs + 750 + 250 * k, 250));
  return lines;
}

describe.each(backends)('k6 --out json rates on $name', (backend) => {
  const server = useServer(backend);
  const post = async (runId: string, lines: string[]) => {
    const posted = await server.json(
      `/runs/${runId}/results?format=k6-ndjson`,
      {
        method: 'POST',
        headers: { 'content-type': 'application/x-ndjson' },
        body: `${[...METRICS, ...lines].join('\n')}\n`,
      },
      importResultsResponse,
    );
    expect(posted.status).toBe(201);
  };
  const stored = async (runId: string) =>
    (await server.json(`/runs/${runId}/results`, {}, z.array(storedLoadResult))).body;
  const byScenario = (rows: StoredLoadResult[], name: string) =>
    rows.find((r) => r.labels.scenario === name) as StoredLoadResult;

  it('times a 15 s and a 4 s step over the span k6 measured, not their whole seconds', async () => {
    const run = await createRun(server);
    // "long": 60 requests, first start T0 + 0.5 s, last end T0 + 15.5 s: 15 s, 60 / 15 = 4 rps
    // (its intervals [T0, T0 + 16 s) would say 60 / 16 = 3.75, -6.25 %).
    // "short", a minute later: 16 requests over [T0 + 60.5 s, T0 + 64.5 s]: 4 s, 16 / 4 = 4 rps
    // (its intervals [T0 + 60 s, T0 + 65 s) would say 16 / 5 = 3.2, -20 %).
    await post(run.id, [...scenario('long', 0, 60), ...scenario('short', 60_000, 16)]);
    const rows = await stored(run.id);
    expect(byScenario(rows, 'long')).toMatchObject({
      requests: 60,
      durationMs: 15_000,
      achievedRps: 4,
      startedAt: '2026-11-26T12:00:00.500000Z',
    });
    expect(byScenario(rows, 'short')).toMatchObject({
      requests: 16,
      durationMs: 4000,
      achievedRps: 4,
      startedAt: '2026-11-26T12:01:00.500000Z',
    });
  });

  it('gives a stage of scenarios run one after another their requests over the time they ran', async () => {
    const run = await createRun(server);
    await post(run.id, [...scenario('long', 0, 60), ...scenario('short', 60_000, 16)]);
    const { body } = await server.json(`/runs/${run.id}/results/stages`, {}, loadStages);
    // Both are one step (mode http, no connections or target named): 76 requests over the
    // 15 s + 4 s they ran = 4 rps, where adding their rates said 8.
    expect(body.stages).toHaveLength(1);
    expect(body.stages[0]).toMatchObject({ requests: 76, achievedRps: 4 });
  });
});
