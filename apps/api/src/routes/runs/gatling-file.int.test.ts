// Gatling's simulation.log posted as a file: the text one (fixtures/public/gatling,
// gatling/gatling's own test file, and a longer one laid out as LogFileDataWriter v3.12.0
// writes it; read here with split) and the binary one of 3.13 on (gatling/gatling's own, and
// longer ones from the port of its writer). Told by its opening, read as it arrives, stored as
// its REQUEST records say.
import { readFileSync } from 'node:fs';
import { apiError, importResultsResponse, storedLoadResult } from '@meshbench/schema';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { readGatlingBinary } from '../../ingest/results/gatling-binary.decoder.ts';
import { encodeGatlingLog } from '../../ingest/results/gatling-binary.encode.ts';
import {
  expectRecomputed,
  gatlingRun,
  requestsOf,
} from '../../ingest/results/gatling-binary.test-fixtures.ts';
import type { GatlingRecord } from '../../ingest/results/gatling-binary.ts';
import { publicFixture } from '../../ingest/results/test-fixtures.ts';
import { backends, createRun, useServer } from '../../test/harness.ts';

const upstream = publicFixture('gatling/single_node_with_known_stats-simulation.log');

/** REQUEST records as Gatling 3.12 writes them: groups, name, start, end, OK|KO, message. */
function built(): string {
  const lines = [
    'RUN\tcomputerdatabase.BasicSimulation\tbasicsimulation\t1700000000000\t \t3.12.0',
  ];
  let seed = 7;
  for (let i = 0; i < 2000; i++) {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    const start = 1700000000000 + i * 5;
    const end = start + (seed % 900) + (i % 97 === 0 ? 4000 : 0);
    const ko = seed % 13 === 0;
    lines.push(
      `REQUEST\tgroup,sub\t${i % 2 ? 'Home' : 'Search'}\t${start}\t${end}\t${ko ? 'KO\tstatus.find.is(200), but actually found 503' : 'OK\t '}`,
    );
    if (i % 500 === 0) lines.push(`USER\tUsers\tSTART\t${start}`);
  }
  return `${lines.join('\n')}\n`;
}

describe.each(backends)("Gatling's simulation.log on $name", (backend) => {
  // Below the built file's size: the upload is read as it arrives, never whole.
  const server = useServer(backend, { MESHBENCH_MAX_RESULT_BYTES: '4096' });

  for (const [name, file] of [
    ['upstream', upstream],
    ['built', built()],
  ] as const) {
    it(`stores the ${name} file as its REQUEST records say, each percentile within 1 ms`, async () => {
      const rows = file
        .split('\n')
        .filter((l) => l.startsWith('REQUEST\t'))
        .map((l) => l.split('\t'));
      const times = rows.map((r) => Number(r[4]) - Number(r[3])).sort((a, b) => a - b);
      const run = await createRun(server);
      const posted = await server.json(
        `/runs/${run.id}/results`,
        { method: 'POST', headers: { 'content-type': 'text/plain' }, body: file },
        z.union([importResultsResponse, apiError]),
      );
      expect(posted.status).toBe(201);
      expect(posted.body).toMatchObject({ format: 'gatling', imported: 1 });
      const [point] = (await server.json(`/runs/${run.id}/results`, {}, z.array(storedLoadResult)))
        .body;
      const starts = rows.map((r) => Number(r[3]));
      const ends = rows.map((r) => Number(r[4]));
      expect(point).toMatchObject({
        requests: rows.length,
        errors: rows.filter((r) => r[5] === 'KO').length,
        minMs: times[0],
        maxMs: times.at(-1),
        durationMs: Math.max(...ends) - Math.min(...starts),
      });
      expect(point?.percentiles.length).toBeGreaterThan(0);
      for (const q of point?.percentiles ?? []) {
        // Nearest rank in integers (p to 4 decimals), clear of 0.99 * 2000 = 1980.0000000000002.
        const v = times[
          Math.ceil((Math.round(q.p * 10000) * times.length) / 1_000_000) - 1
        ] as number;
        expect(q).toMatchObject({ ms: v, lower: v - 1, upper: v + 1, exact: false, method: 'raw' });
      }
    });
  }

  it('refuses a bad line by number and stores nothing', async () => {
    const file = built().replace(/\tOK\t \n/, '\tMAYBE\t \n');
    const run = await createRun(server);
    const posted = await server.json(
      `/runs/${run.id}/results`,
      { method: 'POST', headers: { 'content-type': 'text/plain' }, body: file },
      z.union([importResultsResponse, apiError]),
    );
    expect(posted.status).toBe(400);
    expect(JSON.stringify(posted.body)).toMatch(/line \d+: status must be OK or KO/);
    const stored = await server.json(`/runs/${run.id}/results`, {}, z.array(storedLoadResult));
    expect(stored.body).toEqual([]);
  });

  const binaryUpstream = readFileSync(
    new URL(
      '../../../../../fixtures/public/gatling/known_stats-binary-simulation.log',
      import.meta.url,
    ),
  );

  for (const [name, records, query] of [
    ['upstream binary', null, ''],
    ['binary (8000 requests, written by the port)', gatlingRun(8000), ''],
    ['binary named', gatlingRun(300), '?format=gatling'],
  ] as const) {
    it(`stores the ${name} simulation.log of Gatling 3.13 on as its REQUEST records say`, async () => {
      const body = records === null ? binaryUpstream : encodeGatlingLog(records);
      const run = await createRun(server);
      const posted = await server.json(
        `/runs/${run.id}/results${query}`,
        { method: 'POST', headers: { 'content-type': 'application/octet-stream' }, body },
        z.union([importResultsResponse, apiError]),
      );
      expect(posted.status).toBe(201);
      expect(posted.body).toMatchObject({ format: 'gatling', imported: 1 });
      const [point] = (await server.json(`/runs/${run.id}/results`, {}, z.array(storedLoadResult)))
        .body;
      // The raw records: read back by the port's own (gatling/gatling's file: checked byte for
      // byte against the port in gatling-binary.decoder.test.ts).
      const requests = requestsOf(records ?? (await recordsOf(binaryUpstream)));
      expectRecomputed(point, requests);
      if (records === null) expect(point).toMatchObject({ requests: 105, minMs: 87, maxMs: 368 });
    });
  }

  it('refuses a cut binary simulation.log and stores nothing', async () => {
    const body = encodeGatlingLog(gatlingRun(2000));
    const run = await createRun(server);
    const posted = await server.json(
      `/runs/${run.id}/results`,
      {
        method: 'POST',
        headers: { 'content-type': 'application/octet-stream' },
        body: body.subarray(0, body.length - 3),
      },
      z.union([importResultsResponse, apiError]),
    );
    expect(posted.status).toBeGreaterThanOrEqual(400);
    expect(posted.status).toBeLessThan(500);
    expect(JSON.stringify(posted.body)).toMatch(/the file ends inside record \d+/);
    const stored = await server.json(`/runs/${run.id}/results`, {}, z.array(storedLoadResult));
    expect(stored.body).toEqual([]);
  });
});

async function recordsOf(bytes: Uint8Array): Promise<GatlingRecord[]> {
  const out: GatlingRecord[] = [];
  await readGatlingBinary(
    (async function* () {
      yield bytes;
    })(),
    { maxLineBytes: 1 << 20 },
    (r) => out.push(r),
  );
  return out;
}
