// A stream written by a real `k6 run --out json` (fixtures/public/k6/PROVENANCE.md: 75 s of
// GET requests, 1,122 of them), posted as k6 wrote it, gzip on the wire. What comes back is
// checked against the file read here line by line with JSON.parse and nothing of the decoder:
// the counts, the extremes, and each percentile's [lower, upper] around the nearest-rank
// value of the raw latencies.
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { importResultsResponse, loadStages, storedLoadResult } from '@meshbench/schema';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { backends, createRun, useServer } from '../../test/harness.ts';

const gzipped = readFileSync(
  new URL('../../../../../fixtures/public/k6/czrpb-workloads-k6out.json.gz', import.meta.url),
);

/** The raw samples of the file, as k6 wrote them. */
function rawSamples() {
  const durations: number[] = [];
  let requests = 0;
  let failed = 0;
  let vus = 0;
  // The span k6 measured: from the earliest request start (end - duration) to the last end,
  // in us (every time in this file is UTC, "Z", with up to 9 fraction digits).
  let firstStartUs = Number.POSITIVE_INFINITY;
  let lastEndUs = Number.NEGATIVE_INFINITY;
  const endUs = (time: string) => {
    const [, whole, fraction = ''] = /^(.{19})(?:\.(\d+))?Z$/.exec(time) as RegExpExecArray;
    return Date.parse(`${whole}Z`) * 1000 + Number(`0.${fraction || '0'}`) * 1e6;
  };
  for (const line of gunzipSync(gzipped).toString('utf8').split('\n')) {
    if (!line) continue;
    const o = JSON.parse(line) as {
      type: string;
      metric: string;
      data: { value: number; time: string };
    };
    if (o.type !== 'Point') continue;
    if (o.metric === 'http_req_duration') {
      durations.push(o.data.value);
      const end = endUs(o.data.time);
      firstStartUs = Math.min(firstStartUs, end - o.data.value * 1000);
      lastEndUs = Math.max(lastEndUs, end);
    }
    if (o.metric === 'http_reqs') requests += o.data.value;
    if (o.metric === 'http_req_failed') failed += o.data.value;
    if (o.metric === 'vus') vus = Math.max(vus, o.data.value);
  }
  durations.sort((a, b) => a - b);
  return { durations, requests, failed, vus, spanMs: (lastEndUs - firstStartUs) / 1000 };
}

const nearestRank = (sorted: number[], p: number) =>
  sorted[Math.ceil((p / 100) * sorted.length) - 1] as number;

describe.each(backends)('a real k6 --out json stream on $name', (backend) => {
  const server = useServer(backend);

  it('imports as one step whose numbers are those of its raw samples', async () => {
    const raw = rawSamples();
    expect(raw.durations).toHaveLength(1122);
    const run = await createRun(server);
    const posted = await server.json(
      `/runs/${run.id}/results`,
      {
        method: 'POST',
        headers: { 'content-type': 'application/x-ndjson', 'content-encoding': 'gzip' },
        body: gzipped,
      },
      importResultsResponse,
    );
    expect(posted.status).toBe(201);
    expect(posted.body).toMatchObject({ format: 'k6-ndjson', imported: 1 });

    const [point] = (await server.json(`/runs/${run.id}/results`, {}, z.array(storedLoadResult)))
      .body;
    expect(point).toMatchObject({
      requests: raw.requests,
      errors: raw.failed,
      connections: raw.vus,
      minMs: raw.durations[0],
      maxMs: raw.durations.at(-1),
    });
    // The rate over the span k6 measured (20.027 s, from 01:26:26.840 to 01:26:46.867), not
    // over the 21 whole seconds its intervals cover.
    expect(point?.durationMs).toBeCloseTo(raw.spanMs, 3);
    expect(point?.achievedRps).toBeCloseTo(raw.requests / (raw.spanMs / 1000), 6);
    const mean = raw.durations.reduce((a, b) => a + b, 0) / raw.durations.length;
    expect(point?.meanMs).toBeCloseTo(mean, 9);
    for (const p of [50, 90, 95, 99, 99.9]) {
      const exact = nearestRank(raw.durations, p);
      const stated = point?.percentiles.find((x) => x.p === p);
      expect(stated, `P${p}`).toMatchObject({ method: 'hdr', exact: false });
      // The stated bounds hold the true nearest-rank value, and are at most 0.1 % apart.
      expect(stated?.lower as number, `P${p} lower`).toBeLessThanOrEqual(exact);
      expect(stated?.upper as number, `P${p} upper`).toBeGreaterThanOrEqual(exact);
      expect((stated?.upper as number) - (stated?.lower as number)).toBeLessThan(exact * 0.001);
    }

    // Its samples as 1 s intervals: every request in exactly one.
    const stages = await server.json(`/runs/${run.id}/results/stages`, {}, loadStages);
    expect(stages.status).toBe(200);
    const counted = stages.body.series.reduce((n, s) => n + s.requests, 0);
    expect(counted).toBe(raw.requests);
    expect(stages.body.stages).toHaveLength(1);
  });
});
