// Vegeta's binary results (what `vegeta attack` writes) posted as a file, told by their bytes
// or named, and stored as the same results written as JSON lines are: raw samples, nearest
// rank to the us. The files: written by Go's own encoding/gob with Vegeta's Result struct
// (fixtures/generated/vegeta-gob), and by ingest/results/vegeta-gob.encode.ts.
import { apiError, importResultsResponse, storedLoadResult } from '@meshbench/schema';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { publicFixture } from '../../ingest/results/test-fixtures.ts';
import {
  expectVegetaRecomputed,
  GO_VEGETA_FILES,
  goVegeta,
} from '../../ingest/results/vegeta-go.test-fixtures.ts';
import { encodeVegetaGob, vegetaResultOfJson } from '../../ingest/results/vegeta-gob.encode.ts';
import { backends, createRun, useServer } from '../../test/harness.ts';

const text = publicFixture('vegeta/ocm-api-load-results.json');
const gob = encodeVegetaGob(
  text
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map(vegetaResultOfJson),
);

describe.each(backends)("Vegeta's binary results on $name", (backend) => {
  const server = useServer(backend);

  const post = (runId: string, body: Uint8Array | string, query: string) =>
    server.json(
      `/runs/${runId}/results${query}`,
      {
        method: 'POST',
        headers: { 'content-type': 'application/octet-stream' },
        body: typeof body === 'string' ? body : Buffer.from(body),
      },
      z.union([importResultsResponse, apiError]),
    );
  const stored = async (runId: string) =>
    (await server.json(`/runs/${runId}/results`, {}, z.array(storedLoadResult))).body;

  it('are told by their bytes, or named, and stored as their JSON lines are', async () => {
    const asJson = await createRun(server);
    expect((await post(asJson.id, text, '')).status).toBe(201);
    for (const query of ['', '?format=vegeta']) {
      const run = await createRun(server);
      const posted = await post(run.id, gob, query);
      expect(posted.status).toBe(201);
      expect(posted.body).toMatchObject({ format: 'vegeta', imported: 1 });
      const [fromGob] = await stored(run.id);
      const [fromJson] = await stored(asJson.id);
      const { id: _a, runId: _b, createdAt: _c, ...gobPoint } = fromGob as Record<string, unknown>;
      const {
        id: _d,
        runId: _e,
        createdAt: _f,
        ...jsonPoint
      } = fromJson as Record<string, unknown>;
      expect(gobPoint).toEqual(jsonPoint);
      expect(gobPoint).toMatchObject({ requests: 3, errors: 1 });
    }
  });

  it.each(GO_VEGETA_FILES)(
    'stores %s.gob (Go wrote it) as its samples give it, told by its bytes',
    async (name) => {
      const { gob: file, samples } = goVegeta(name);
      const run = await createRun(server);
      const posted = await post(run.id, file, '');
      expect(posted.status).toBe(201);
      expect(posted.body).toMatchObject({ format: 'vegeta', imported: 1 });
      const [point] = await stored(run.id);
      expectVegetaRecomputed(point, samples);
    },
  );

  it('refuses a cut file with a 4xx that says so, storing nothing', async () => {
    const run = await createRun(server);
    const posted = await post(run.id, gob.subarray(0, gob.length - 5), '');
    expect(posted.status).toBe(400);
    expect((posted.body as { message: string }).message).toMatch(/ends inside a gob message/);
    expect(await stored(run.id)).toEqual([]);
  });
});
