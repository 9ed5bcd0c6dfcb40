// HdrHistogram interval logs through the API: per-generator points, merged steps, the stages
// view, and files refused whole.
import { apiError, importResultsResponse, loadStages, storedLoadResult } from '@meshbench/schema';
import { build, type JsHistogram } from 'hdr-histogram-js';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { nearestRank } from '../../domain/bucket-percentiles.ts';
import { writeHdrLog } from '../../ingest/results/hdr-log.test-fixtures.ts';
import { backends, createRun, useServer } from '../../test/harness.ts';

const START = Date.UTC(2026, 10, 26, 12, 0, 0);
const storedResults = z.array(storedLoadResult);

describe.each(backends)('HdrHistogram interval logs on $name', (backend) => {
  const server = useServer(backend);
  const post = (runId: string, body: string, query = '') =>
    server.json(
      `/runs/${runId}/results${query}`,
      { method: 'POST', headers: { 'content-type': 'text/plain' }, body },
      z.union([importResultsResponse, apiError]),
    );
  const results = async (runId: string, query = '') =>
    server.json(`/runs/${runId}/results${query}`, {}, storedResults);
  const stages = async (runId: string, query = '') =>
    server.json(`/runs/${runId}/results/stages${query}`, {}, z.union([loadStages, apiError]));

  it('keeps each generator, merges their step, and serves the stages', async () => {
    const run = await createRun(server);
    const logs = [11, 12].map((seed) =>
      writeHdrLog({
        seed,
        startMs: START,
        intervals: 6,
        perInterval: 500,
        medianUs: 1000 * (seed - 9),
      }),
    );
    for (const [g, log] of logs.entries()) {
      const posted = await post(
        run.id,
        log.text,
        `?mode=both&connections=64&targetRps=1000&generator=g${g}${g === 1 ? '&generatorCpu=0.99' : ''}`,
      );
      expect(posted.status).toBe(201);
      expect(posted.body).toMatchObject({ format: 'hdr-log', imported: 1 });
    }
    const listed = await results(run.id, '?percentiles=99.5');
    expect(listed.status).toBe(200);
    const raw = (await server.api(`/runs/${run.id}/results`)).text();
    expect(await raw).not.toContain('"hdr":');
    const rows = listed.body;
    expect(rows.map((r) => [r.generator, r.merged === null])).toEqual([
      ['g0', true],
      ['g1', true],
      [null, false],
    ]);
    const merged = rows[2];
    const union = logs.flatMap((l) => l.values);
    const direct = build({ bitBucketSize: 64, numberOfSignificantValueDigits: 3 }) as JsHistogram;
    for (const v of union) direct.recordValue(v);
    const sorted = [...union].sort((a, b) => a - b);
    expect(merged).toMatchObject({
      id: null,
      mode: 'both',
      connections: 64,
      targetRps: 1000,
      requests: 6000,
    });
    // 500 requests a second from each generator for 6 s.
    expect(merged?.achievedRps).toBeCloseTo(1000, 6);
    expect(merged?.merged?.generators).toEqual([
      { name: 'g0', achievedRps: 500, shortfall: false, saturated: false },
      { name: 'g1', achievedRps: 500, shortfall: false, saturated: true },
    ]);
    for (const p of [50, 99, 99.5]) {
      const q = merged?.percentiles.find((x) => x.p === p);
      expect(q?.ms).toBe(direct.getValueAtPercentile(p) / 1000);
      const exact = (sorted[nearestRank(p, sorted.length) - 1] as number) / 1000;
      expect(q?.lower).toBeLessThanOrEqual(exact);
      expect(q?.upper).toBeGreaterThanOrEqual(exact);
      expect(q).toMatchObject({ exact: false, method: 'hdr', relativeError: 0.001 });
    }
    // A generator's own row answers a percentile it was not stored with, from its histogram.
    expect(rows[0]?.percentiles.some((q) => q.p === 99.5 && q.method === 'hdr')).toBe(true);

    const view = await stages(run.id, '?percentiles=50,99');
    expect(view.status).toBe(200);
    const body = loadStages.parse(view.body);
    expect(body.intervalMs).toBe(1000);
    expect(body.series.map((s) => [s.startMs, s.requests, s.generators, s.rps])).toEqual(
      logs[0]?.intervals.map((i) => [i.startMs, 1000, 2, 1000]),
    );
    // Slot 3: both generators' third interval, its p99 that of their union.
    const slot = [
      ...(logs[0]?.intervals[2]?.values ?? []),
      ...(logs[1]?.intervals[2]?.values ?? []),
    ];
    const slotDirect = build({ numberOfSignificantValueDigits: 3 });
    for (const v of slot) slotDirect.recordValue(v);
    expect(body.series[2]?.percentiles.find((q) => q.p === 99)?.ms).toBe(
      slotDirect.getValueAtPercentile(99) / 1000,
    );
    expect(body.series[2]?.errors).toBeNull();
    expect(body.stages).toHaveLength(1);
    expect(body.stages[0]).toMatchObject({
      mode: 'both',
      connections: 64,
      targetRps: 1000,
      fromMs: START,
      toMs: START + 6000,
      requests: 6000,
      errors: null,
      errorRate: null,
    });
    expect(body.stages[0]?.percentiles.find((q) => q.p === 99)?.ms).toBe(
      direct.getValueAtPercentile(99) / 1000,
    );
  });

  it('reads the steps a tagged log names, in time order', async () => {
    const run = await createRun(server);
    const a = writeHdrLog({
      seed: 1,
      startMs: START,
      intervals: 2,
      perInterval: 100,
      tag: 'mode:baseline;targetRps:100',
    });
    const b = writeHdrLog({
      seed: 2,
      startMs: START + 2000,
      baseMs: START,
      intervals: 2,
      perInterval: 300,
      tag: 'mode:both;targetRps:1000',
    });
    const body = `${a.text}${b.text
      .split('\n')
      .filter((l) => l.startsWith('Tag='))
      .join('\n')}\n`;
    expect((await post(run.id, body, '?generator=solo')).body).toMatchObject({ imported: 2 });
    const view = loadStages.parse((await stages(run.id)).body);
    expect(view.stages.map((s) => [s.mode, s.targetRps, s.requests, s.fromMs])).toEqual([
      ['baseline', 100, 200, START],
      ['both', 1000, 600, START + 2000],
    ]);
    // Each generator's share: 300 achieved of 1000 is short.
    expect(view.stages[1]?.generators).toEqual([
      { name: 'solo', achievedRps: 300, shortfall: true, saturated: false },
    ]);
    expect(view.series.map((s) => s.requests)).toEqual([100, 100, 300, 300]);
  });

  describe('refuses a file whole', () => {
    const log = writeHdrLog({ seed: 3, startMs: START, intervals: 4, perInterval: 50 }).text;
    const lines = log.split('\n');
    const last = lines.findLastIndex((l) => /^\d/.test(l));
    const fields = (lines[last] as string).split(',');
    const cases: [string, string, number, string][] = [
      [
        'bad base64',
        [...fields.slice(0, 3), 'HIST!!'].join(','),
        400,
        'Interval_Compressed_Histogram',
      ],
      ['a truncated line', fields.slice(0, 2).join(','), 400, 'Interval_Max'],
      [
        'a start before the previous one',
        [String(Number(fields[0]) - 5), ...fields.slice(1)].join(','),
        422,
        'StartTimestamp',
      ],
    ];
    it.each(cases)('%s on its last line', async (_name, line, status, field) => {
      const run = await createRun(server);
      const body = lines.map((l, i) => (i === last ? line : l)).join('\n');
      const posted = await post(run.id, body, '?generator=g');
      expect(posted.status).toBe(status);
      expect(posted.body).toMatchObject({ line: last + 1, field });
      expect((await results(run.id)).body).toEqual([]);
      expect((await stages(run.id)).body).toEqual({ intervalMs: 0, series: [], stages: [] });
    });

    it('step query parameters on a file that is not an interval log', async () => {
      const run = await createRun(server);
      const posted = await post(
        run.id,
        '{"DurationHistogram":{"Count":1},"ActualQPS":1}',
        '?generator=g',
      );
      expect(posted.status).toBe(400);
      expect(posted.body).toMatchObject({ code: 'invalid_query', field: 'generator' });
    });

    it('404 for an unknown run', async () => {
      expect((await stages('00000000-0000-0000-0000-000000000000')).status).toBe(404);
    });
  });
});
