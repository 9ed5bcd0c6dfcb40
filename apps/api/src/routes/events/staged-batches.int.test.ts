// On the embedded database a batch's observations are stored ahead of its transaction in
// bounded pieces (staged_event_batches): no read sees them before the batch commits, a batch
// refused after staging leaves none of its rows, and rows left by a stopped process go.
import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { backends, createRun, ndjson, postEvents, useServer } from '../../test/harness.ts';

const T0 = '2026-02-01T10:00:00.000000Z';
const change = {
  type: 'change',
  id: 'c1',
  kind: 'endpoint',
  target: 'hey',
  action: 'delete',
  at: T0,
};
const obs = (change: string, i: number) => ({
  type: 'observation',
  change,
  proxy: `proxy-${i}-sidecar`,
  node: `node-${i % 100}`,
  at: new Date(Date.parse(T0) + 10 + (i % 1000)).toISOString(),
});

describe.each(backends.filter((b) => b.name === 'embedded'))(
  'staged batches on $name',
  (backend) => {
    const server = useServer(backend);
    const count = async (query: ReturnType<typeof sql>) => {
      const result = await server.app.database.db.execute(query);
      return Number((result as unknown as { rows: { n: unknown }[] }).rows[0]?.n);
    };

    it('a batch refused after its 20,000 observations were staged (unknown change) leaves none of its rows', async () => {
      const run = await createRun(server);
      const lines = Array.from({ length: 20_000 }, (_, i) => obs('nowhere', i));
      const { status, body } = await postEvents(server, run.id, ndjson(lines));
      expect(status, JSON.stringify(body)).toBe(422);
      expect(
        await count(sql`select count(*)::int as n from observations where run_id = ${run.id}`),
      ).toBe(0);
      expect(await count(sql`select count(*)::int as n from staged_event_batches`)).toBe(0);
    });

    it('rows of a batch still staged are seen by no read, and go when staged batches are discarded', async () => {
      const run = await createRun(server);
      const first = await postEvents(server, run.id, ndjson([change, obs('c1', 1), obs('c1', 2)]));
      expect(first.status).toBe(200);
      // A batch staged between two committed ones, as a process killed while staging leaves it.
      const db = server.app.database.db;
      const idOf = async () =>
        count(sql`select nextval(pg_get_serial_sequence('event_batches', 'id'))::int as n`);
      const staged = await idOf();
      await db.execute(
        sql`insert into staged_event_batches (id, run_id) values (${staged}, ${run.id})`,
      );
      await db.execute(sql`insert into observations (run_id, change_id, proxy, at, batch_id)
      select ${run.id}, 'c1', 'staged-' || g, ${T0}::timestamptz + interval '5 ms', ${staged}
      from generate_series(1, 50) g`);
      const second = await postEvents(server, run.id, ndjson([obs('c1', 3)]));
      expect(second.status).toBe(200);

      const exported = await fetch(`${server.url}/api/v1/runs/${run.id}/events`);
      const text = await exported.text();
      expect(exported.status).toBe(200);
      expect(text.split('\n').filter((l) => l.includes('"observation"'))).toHaveLength(3);
      expect(text).not.toContain('staged-');

      expect(await server.app.services.ingest.discardStagedBatches()).toBe(1);
      expect(
        await count(sql`select count(*)::int as n from observations where batch_id = ${staged}`),
      ).toBe(0);
      expect(await count(sql`select count(*)::int as n from staged_event_batches`)).toBe(0);
    });
  },
);
