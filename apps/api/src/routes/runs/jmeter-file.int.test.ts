// JMeter's own JTL CSV (fixtures/public/apache-jmeter) posted as a file: told by its header,
// read as it arrives, stored as the file's raw samples say (read here with split and Number).
import { apiError, importResultsResponse, storedLoadResult } from '@meshbench/schema';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { publicFixture } from '../../ingest/results/test-fixtures.ts';
import { backends, createRun, useServer } from '../../test/harness.ts';

const file = publicFixture('apache-jmeter/HTMLReportTestFile.csv');

describe.each(backends)("JMeter's JTL CSV on $name", (backend) => {
  // Below the file's 28 KB: the upload is read as it arrives, never whole.
  const server = useServer(backend, { MESHBENCH_MAX_RESULT_BYTES: '4096' });

  it('is stored as its raw samples say, each percentile within 1 ms', async () => {
    const rows = file
      .trim()
      .split('\n')
      .slice(1)
      .map((r) => r.split(','));
    const elapsed = rows.map((r) => Number(r[1])).sort((a, b) => a - b);
    const run = await createRun(server);
    const posted = await server.json(
      `/runs/${run.id}/results`,
      { method: 'POST', headers: { 'content-type': 'text/csv' }, body: file },
      z.union([importResultsResponse, apiError]),
    );
    expect(posted.status).toBe(201);
    expect(posted.body).toMatchObject({ format: 'jmeter', imported: 1 });
    const [point] = (await server.json(`/runs/${run.id}/results`, {}, z.array(storedLoadResult)))
      .body;
    expect(point).toMatchObject({
      requests: rows.length,
      errors: rows.filter((r) => r[7] === 'false').length,
      minMs: elapsed[0],
      maxMs: elapsed.at(-1),
    });
    for (const q of point?.percentiles ?? []) {
      const v = elapsed[Math.ceil((q.p / 100) * elapsed.length) - 1] as number;
      expect(q).toMatchObject({ ms: v, lower: v - 1, upper: v + 1, exact: false, method: 'raw' });
    }
  });
});
