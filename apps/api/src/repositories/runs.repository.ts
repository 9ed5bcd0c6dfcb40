// Runs in Postgres.
import { type Db, tables } from '@meshbench/db';
import type { CreateRunBody, ListRunsQuery } from '@meshbench/schema';
import { and, count, desc, eq, or, sql } from 'drizzle-orm';

const { runs } = tables;
export type RunRow = typeof runs.$inferSelect;

export function runsRepository(db: Db) {
  return {
    async insert(row: {
      id: string;
      slug: string;
      body: CreateRunBody;
      startedAt: Date;
      finishedAt: Date | null;
    }): Promise<RunRow> {
      const { body } = row;
      const [created] = await db
        .insert(runs)
        .values({
          id: row.id,
          slug: row.slug,
          benchmark: body.benchmark,
          scenario: body.scenario,
          meshName: body.mesh.name,
          meshVersion: body.mesh.version ?? null,
          platform: body.platform ?? null,
          topology: body.topology ?? {},
          environment: body.environment ?? null,
          labels: body.labels ?? {},
          status: row.finishedAt ? 'finished' : 'running',
          startedAt: row.startedAt,
          finishedAt: row.finishedAt,
        })
        .returning();
      return created as RunRow;
    },

    /** By id (a UUID) or by share slug. */
    async find(idOrSlug: string): Promise<RunRow | undefined> {
      const isUuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(
        idOrSlug,
      );
      const [row] = await db
        .select()
        .from(runs)
        .where(
          isUuid ? or(eq(runs.id, idOrSlug), eq(runs.slug, idOrSlug)) : eq(runs.slug, idOrSlug),
        )
        .limit(1);
      return row;
    },

    async list(q: ListRunsQuery & { labels: [string, string][] }) {
      const where = and(
        q.mesh ? eq(runs.meshName, q.mesh) : undefined,
        q.benchmark ? eq(runs.benchmark, q.benchmark) : undefined,
        q.scenario ? eq(runs.scenario, q.scenario) : undefined,
        q.status ? eq(runs.status, q.status) : undefined,
        q.labels.length > 0
          ? sql`${runs.labels} @> ${JSON.stringify(Object.fromEntries(q.labels))}::jsonb`
          : undefined,
      );
      const [rows, [total]] = await Promise.all([
        db
          .select()
          .from(runs)
          .where(where)
          .orderBy(desc(runs.startedAt), desc(runs.id))
          .limit(q.limit)
          .offset(q.offset),
        db.select({ n: count() }).from(runs).where(where),
      ]);
      return { rows, total: total?.n ?? 0 };
    },

    async finish(id: string, finishedAt: Date, status: string): Promise<RunRow | undefined> {
      const [row] = await db
        .update(runs)
        .set({ finishedAt, status })
        .where(eq(runs.id, id))
        .returning();
      return row;
    },

    async isEmpty(): Promise<boolean> {
      const rows = await db.select({ id: runs.id }).from(runs).limit(1);
      return rows.length === 0;
    },
  };
}
export type RunsRepository = ReturnType<typeof runsRepository>;
