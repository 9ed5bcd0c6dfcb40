// Thresholds and gate results in Postgres.
import { type Db, tables } from '@meshbench/db';
import { and, asc, eq, isNull, or } from 'drizzle-orm';

const { thresholds, gateResults } = tables;
export type ThresholdRow = typeof thresholds.$inferSelect;
export type GateResultRow = typeof gateResults.$inferSelect;

export function gatesRepository(db: Db) {
  return {
    async insertThreshold(row: typeof thresholds.$inferInsert): Promise<ThresholdRow> {
      const [created] = await db.insert(thresholds).values(row).returning();
      return created as ThresholdRow;
    },
    thresholdsOf: (projectId: string) =>
      db
        .select()
        .from(thresholds)
        .where(eq(thresholds.projectId, projectId))
        .orderBy(asc(thresholds.createdAt)),
    async threshold(id: string): Promise<ThresholdRow | undefined> {
      const [row] = await db.select().from(thresholds).where(eq(thresholds.id, id)).limit(1);
      return row;
    },
    async deleteThreshold(id: string): Promise<void> {
      await db.delete(thresholds).where(eq(thresholds.id, id));
    },
    /** The thresholds that apply to a run: its project and benchmark, its scenario or any. */
    applicable: (projectId: string, benchmark: string, scenario: string) =>
      db
        .select()
        .from(thresholds)
        .where(
          and(
            eq(thresholds.projectId, projectId),
            eq(thresholds.benchmark, benchmark),
            or(isNull(thresholds.scenario), eq(thresholds.scenario, scenario)),
          ),
        )
        .orderBy(asc(thresholds.createdAt)),
    async saveResult(row: {
      runId: string;
      passed: boolean;
      verdicts: Record<string, unknown>[];
    }): Promise<GateResultRow> {
      const [saved] = await db
        .insert(gateResults)
        .values(row)
        .onConflictDoUpdate({
          target: gateResults.runId,
          set: { passed: row.passed, verdicts: row.verdicts, evaluatedAt: new Date() },
        })
        .returning();
      return saved as GateResultRow;
    },
    async result(runId: string): Promise<GateResultRow | undefined> {
      const [row] = await db
        .select()
        .from(gateResults)
        .where(eq(gateResults.runId, runId))
        .limit(1);
      return row;
    },
  };
}
export type GatesRepository = ReturnType<typeof gatesRepository>;
