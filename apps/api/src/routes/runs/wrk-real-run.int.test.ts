// Debian's wrk (/usr/bin/wrk, wg/wrk 4.1.0) run with --latency against a local server this
// test starts, its report posted as wrk printed it: told apart from wrk2 ('wrk'), its four
// percentiles kept as wrk printed them ('reported'), its counts as its own lines say.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { apiError, importResultsResponse, storedLoadResult } from '@meshbench/schema';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { backends, createRun, useServer } from '../../test/harness.ts';
import { type LoadTarget, startLoadTarget } from '../../test/load-target.ts';

const WRK = process.env.WRK_BIN ?? '/usr/bin/wrk';

let target: LoadTarget;
let report: string;
beforeAll(async () => {
  target = await startLoadTarget({ failEvery: 5 });
  const { stdout } = await promisify(execFile)(
    WRK,
    ['-t1', '-c2', '-d1s', '--timeout', '2s', '--latency', target.url],
    { timeout: 20_000 },
  );
  report = stdout;
}, 30_000);
afterAll(() => target?.close());

const UNIT_MS: Record<string, number> = { us: 0.001, ms: 1, s: 1000, m: 60_000 };

describe.each(backends)('a real wrk 4 report on $name', (backend) => {
  const server = useServer(backend);

  it('is stored as wrk, its percentiles and counts as the report prints them', async () => {
    const run = await createRun(server);
    const posted = await server.json(
      `/runs/${run.id}/results`,
      { method: 'POST', headers: { 'content-type': 'text/plain' }, body: report },
      z.union([importResultsResponse, apiError]),
    );
    expect(posted.body).toMatchObject({ format: 'wrk', imported: 1 });
    const [point] = (await server.json(`/runs/${run.id}/results`, {}, z.array(storedLoadResult)))
      .body;
    const printed = [...report.matchAll(/^\s+(\d+)%\s+([\d.]+)(us|ms|s|m)$/gm)].map((m) => [
      Number(m[1]),
      Number(m[2]) * (UNIT_MS[m[3] as string] as number),
    ]);
    expect(printed.map(([p]) => p)).toEqual([50, 75, 90, 99]);
    expect(point?.percentiles).toHaveLength(4);
    point?.percentiles.forEach((q, i) => {
      expect(q.p).toBe(printed[i]?.[0]);
      expect(q.ms).toBeCloseTo(printed[i]?.[1] as number, 9);
      expect(q).toMatchObject({ exact: false, method: 'reported' });
    });
    expect(point?.requests).toBe(Number(/(\d+) requests in/.exec(report)?.[1]));
    const non2xx = Number(/Non-2xx or 3xx responses: (\d+)/.exec(report)?.[1]);
    expect(non2xx).toBeGreaterThan(0);
    expect(point?.errors).toBeGreaterThanOrEqual(non2xx);
  });
});
