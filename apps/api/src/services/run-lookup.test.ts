import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import type { RunRow } from '../repositories/runs.repository.ts';
import { handOn, inRunScope, withHandedRuns } from './run-lookup.ts';

const row = (id: string) => ({ id, projectId: 'p' }) as unknown as RunRow;

function counted() {
  const looked: string[] = [];
  const runs = withHandedRuns({
    find: async (ref: string) => {
      looked.push(ref);
      return row(ref);
    },
  });
  return { runs, looked };
}

describe('a run handed on within a request', () => {
  it("is the handler's first lookup of it, through Fastify's hooks; later ones read again", async () => {
    const { runs, looked } = counted();
    const app = Fastify();
    app.addHook('onRequest', (_request, _reply, done) => inRunScope(done));
    app.addHook('onRequest', async (request) => {
      const { id } = request.params as { id: string };
      const run = await runs.find(id);
      if (run) handOn(id, run);
    });
    app.get('/runs/:id/x', async (request) => {
      const { id } = request.params as { id: string };
      const first = await runs.find(id);
      const again = await runs.find(id);
      return { first: first?.id, again: again?.id };
    });
    const answer = await app.inject({ url: '/runs/r1/x' });
    expect(answer.json()).toEqual({ first: 'r1', again: 'r1' });
    // The hook's lookup, then the second one in the handler: the first was handed on.
    expect(looked).toEqual(['r1', 'r1']);
    // Requests do not share what they hand on.
    await app.inject({ url: '/runs/r2/x' });
    expect(looked).toEqual(['r1', 'r1', 'r2', 'r2']);
    await app.close();
  });

  it('is nothing outside a request scope', async () => {
    const { runs, looked } = counted();
    handOn('r1', row('r1'));
    await runs.find('r1');
    expect(looked).toEqual(['r1']);
  });
});
