// Thresholds and gate results in Postgres.
import { type Db, DEFAULT_STAGE, tables } from '@meshbench/db';
import { and, asc, desc, eq, isNull, or, sql } from 'drizzle-orm';
import { visibleBlocks } from './latency-blocks.ts';
import { toFloat64 } from './propagation.repository.ts';

const { thresholds, gateResults, changes, latencyBlocks, alerts } = tables;
export type ThresholdRow = typeof thresholds.$inferSelect;
export type AlertRow = typeof alerts.$inferSelect;
export type GateResultRow = typeof gateResults.$inferSelect;

export function gatesRepository(db: Db) {
  /** A change's raw first-application latencies (ms, ascending: blocks are kept in order). */
  async function changeLatenciesMs(runId: string, changeId: string): Promise<Float64Array> {
    const rows = await db
      .select({ latencies: latencyBlocks.latencies })
      .from(latencyBlocks)
      .where(
        and(
          eq(latencyBlocks.runId, runId),
          eq(latencyBlocks.changeId, changeId),
          eq(latencyBlocks.stage, DEFAULT_STAGE),
          eq(latencyBlocks.clock, 'raw'),
          sql.raw(visibleBlocks()),
        ),
      )
      .orderBy(asc(latencyBlocks.blockNo));
    const blocks = rows.map((r) => toFloat64(r.latencies));
    const out = new Float64Array(blocks.reduce((n, b) => n + b.length, 0));
    let at = 0;
    for (const b of blocks) {
      for (let i = 0; i < b.length; i++) out[at + i] = (b[i] as number) / 1000;
      at += b.length;
    }
    return out;
  }

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
    /**
     * Every first-application latency (ms, ascending) of the run's first change, as its kept
     * blocks hold them (raw clocks, stage applied); null for a run without changes.
     */
    async firstChangeLatenciesMs(runId: string): Promise<Float64Array | null> {
      const [first] = await db
        .select({ id: changes.id })
        .from(changes)
        .where(eq(changes.runId, runId))
        .orderBy(asc(changes.at), asc(changes.id))
        .limit(1);
      return first ? changeLatenciesMs(runId, first.id) : null;
    },
    changeLatenciesMs,
    alertsOfSeries: (projectId: string, seriesKey: string, kind: string) =>
      db
        .select()
        .from(alerts)
        .where(
          and(
            eq(alerts.projectId, projectId),
            eq(alerts.seriesKey, seriesKey),
            eq(alerts.kind, kind),
          ),
        ),
    alertsOf: (projectId: string, state?: string) =>
      db
        .select()
        .from(alerts)
        .where(
          state
            ? and(eq(alerts.projectId, projectId), eq(alerts.state, state))
            : eq(alerts.projectId, projectId),
        )
        .orderBy(desc(alerts.createdAt)),
    async alert(id: string): Promise<AlertRow | undefined> {
      const [row] = await db.select().from(alerts).where(eq(alerts.id, id)).limit(1);
      return row;
    },
    async insertAlert(row: typeof alerts.$inferInsert): Promise<AlertRow> {
      const [created] = await db.insert(alerts).values(row).returning();
      return created as AlertRow;
    },
    async updateAlert(
      id: string,
      patch: Partial<
        Pick<AlertRow, 'runId' | 'previousRunId' | 'details' | 'state' | 'detected' | 'log'>
      >,
    ): Promise<AlertRow> {
      const [row] = await db
        .update(alerts)
        .set({ ...patch, updatedAt: new Date() })
        .where(eq(alerts.id, id))
        .returning();
      return row as AlertRow;
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
