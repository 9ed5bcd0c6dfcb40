// oha's JSON summary (ingest/results/fixtures/oha-json.json, laid out as hatoo/oha's
// print_json writes it) posted as a file: told by its shape, stored as its numbers say (read
// here with JSON.parse), its percentiles oha's own.
import { apiError, importResultsResponse, storedLoadResult } from '@meshbench/schema';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { localFixture } from '../../ingest/results/test-fixtures.ts';
import { backends, createRun, useServer } from '../../test/harness.ts';

const file = localFixture('oha-json.json');

describe.each(backends)("oha's JSON summary on $name", (backend) => {
  const server = useServer(backend);

  it('is stored as its summary and distributions say', async () => {
    const doc = JSON.parse(file) as {
      summary: Record<string, number>;
      latencyPercentiles: Record<string, number>;
      statusCodeDistribution: Record<string, number>;
      errorDistribution: Record<string, number>;
    };
    const sum = (o: Record<string, number>) => Object.values(o).reduce((a, b) => a + b, 0);
    const clientErrors =
      sum(doc.errorDistribution) - (doc.errorDistribution['aborted due to deadline'] ?? 0);
    const run = await createRun(server);
    const posted = await server.json(
      `/runs/${run.id}/results`,
      { method: 'POST', headers: { 'content-type': 'application/json' }, body: file },
      z.union([importResultsResponse, apiError]),
    );
    expect(posted.status).toBe(201);
    expect(posted.body).toMatchObject({ format: 'oha', imported: 1 });
    const [point] = (await server.json(`/runs/${run.id}/results`, {}, z.array(storedLoadResult)))
      .body;
    expect(point).toMatchObject({
      requests: sum(doc.statusCodeDistribution) + clientErrors,
      errors: clientErrors,
    });
    expect(point?.maxMs).toBeCloseTo((doc.summary.slowest as number) * 1000, 9);
    const expected = Object.entries(doc.latencyPercentiles)
      .map(([k, v]) => ({ p: Number(k.slice(1)), ms: v * 1000 }))
      .sort((a, b) => a.p - b.p);
    expect(point?.percentiles.map((q) => q.p)).toEqual(expected.map((q) => q.p));
    for (const [i, q] of (point?.percentiles ?? []).entries()) {
      expect(q.ms).toBeCloseTo(expected[i]?.ms as number, 9);
      expect(q.method).toBe('reported');
    }
  });
});
