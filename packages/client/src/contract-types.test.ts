// The client's calls are typed from the route contracts: a path, a param or a body the API
// does not take must not compile. `tsc --noEmit` (the package's typecheck) checks the
// `@ts-expect-error` lines below: each fails the typecheck if its line ever compiles.
import { contracts, type Run } from '@meshbench/schema';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { createClient } from './client.ts';
import { pathTo, routeAt } from './routes.ts';
import type { Transport } from './transport.ts';

const RUN_ID = '6f1c1c1e-3f0e-4b7a-9f55-2d8c8c1d2a01';

/** Records what was sent; answers each call with `answer`. */
function recording(answer: unknown) {
  const sent: { method: string; path: string; body?: unknown }[] = [];
  const transport: Transport = {
    async request(method, path, init = {}) {
      sent.push({ method, path, body: init.body });
      return answer;
    },
  };
  return { sent, client: createClient(transport) };
}

describe('calls typed from the contracts', () => {
  it('refuses a misspelt path, a missing param and a wrong body at compile time', async () => {
    const { client, sent } = recording({ changes: [] });
    const calls = [
      // @ts-expect-error: no route is at /runs/:id/chnages
      () => client.request('GET /runs/:id/chnages', { params: { id: RUN_ID } }),
      // @ts-expect-error: /runs/:id takes GET, PATCH and DELETE, not PUT
      () => client.request('PUT /runs/:id', { params: { id: RUN_ID } }),
      // @ts-expect-error: the propagation of a change needs its changeId too
      () => pathTo(contracts.runs.propagation, { params: { id: RUN_ID } }),
      // @ts-expect-error: a run's params are named id, not runId
      () => client.request('GET /runs/:id', { params: { runId: RUN_ID } }),
      // @ts-expect-error: finishing takes a status of the run's enum
      () => client.runs.finish(RUN_ID, { status: 'done-ish' }),
      // @ts-expect-error: a run is created with its fields, not a name
      () => client.request('POST /runs', { body: { nmae: 'x' } }),
    ];
    expect(calls).toHaveLength(6);
    expect(sent).toEqual([]);
  });

  it('types the answer with the route’s 2xx schema', () => {
    const { client } = recording(null);
    expectTypeOf(client.request<'GET /runs/:id'>).returns.resolves.toEqualTypeOf<Run>();
    expectTypeOf(client.runs.get).returns.resolves.toEqualTypeOf<Run>();
  });

  it('builds the path from the contract, each param encoded', async () => {
    expect(
      pathTo(contracts.runs.propagation, {
        params: { id: 'a/b', changeId: 'c 1' },
        query: { stage: 'serving', withinMs: 1000 },
      }),
    ).toBe('/runs/a%2Fb/changes/c%201/propagation?stage=serving&withinMs=1000');
    expect(routeAt('GET /runs/:id/clocks')).toBe(contracts.runs.clocks);
    const { client, sent } = recording({ id: RUN_ID });
    await client.request('GET /runs/:id/changes', { params: { id: RUN_ID } }).catch(() => {});
    expect(sent[0]).toMatchObject({ method: 'GET', path: `/runs/${RUN_ID}/changes` });
  });
});
