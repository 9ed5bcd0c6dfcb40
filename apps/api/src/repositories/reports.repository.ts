// Reports in Postgres: written once, read by slug, deleted.
import { type Db, tables } from '@meshbench/db';
import { eq, sql } from 'drizzle-orm';

const { reports } = tables;
export type ReportRow = typeof reports.$inferSelect;

export function reportsRepository(db: Db) {
  return {
    async insert(row: {
      id: string;
      slug: string;
      title: string;
      runIds: string[];
      snapshot: Record<string, unknown>;
    }) {
      const [created] = await db.insert(reports).values(row).returning();
      return created as ReportRow;
    },
    async bySlug(slug: string): Promise<ReportRow | undefined> {
      const [row] = await db.select().from(reports).where(eq(reports.slug, slug)).limit(1);
      return row;
    },
    async delete(slug: string): Promise<boolean> {
      const rows = await db
        .delete(reports)
        .where(eq(reports.slug, slug))
        .returning({ id: reports.id });
      return rows.length > 0;
    },
    /** Reports that include a run, newest first. */
    async ofRun(runId: string) {
      return db
        .select({ slug: reports.slug, title: reports.title, createdAt: reports.createdAt })
        .from(reports)
        .where(sql`${runId}::uuid = any(${reports.runIds})`)
        .orderBy(sql`${reports.createdAt} desc`);
    },
  };
}
export type ReportsRepository = ReturnType<typeof reportsRepository>;
