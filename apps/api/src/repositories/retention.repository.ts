// Raw data retention: a project's setting, the runs whose raw rows are due to go, and dropping
// them one run at a time (each statement names its run: one shard on Citus, docs/scale.md).
import { type Db, RAW_TABLES, tables } from '@meshbench/db';
import { eq, sql } from 'drizzle-orm';
import { rowsOf } from './result-rows.ts';
import { emptyRunRows, lockRetried } from './run-partitions.ts';

const { projects } = tables;

/**
 * The runs retention may empty, as a condition on `r` (runs) and `p` (its project): finished,
 * with its history facts and change points kept and current (so the History keeps its points
 * and nothing recomputes them from rows about to go; a failed or cancelled run's History
 * values are computed from its rows at each read, never kept, so it keeps its rows), whose
 * last activity (its finish, else its start, and never before it was stored here) is older
 * than the project's retention, with a current clock-corrected summary beside each raw one
 * when it has clock reports (a corrected summary is computed from observations; the reports
 * themselves are kept), not pinned as a threshold's baseline and not in a report.
 */
const DUE = sql`
  p.raw_retention_days is not null
  and r.raw_dropped_at is null
  and greatest(coalesce(r.finished_at, r.started_at), r.created_at)
      < now() - p.raw_retention_days * interval '1 day'
  and r.status = 'finished'
  and exists (select 1 from run_facts f where f.run_id = r.id
    and f.facts_version = f.data_version and f.alerts_version = f.data_version)
  and not exists (select 1 from change_summaries s
    where s.run_id = r.id and s.clock = 'raw'
      and exists (select 1 from clock_reports k where k.run_id = r.id)
      and not exists (select 1 from change_summaries c
        where c.run_id = r.id and c.change_id = s.change_id and c.stage = s.stage
          and c.clock = 'corrected'
          and c.clock_input_batch >= (select max(b.id) from event_batches b where b.run_id = r.id)))
  and not exists (select 1 from thresholds t where t.baseline = r.id::text)
  and not exists (select 1 from reports s where r.id = any(s.run_ids))`;

export function retentionRepository(db: Db) {
  return {
    /** Sets the project's raw retention (null: for ever); false when there is no project. */
    async setDays(projectId: string, days: number | null): Promise<boolean> {
      const rows = await db
        .update(projects)
        .set({ rawRetentionDays: days })
        .where(eq(projects.id, projectId))
        .returning({ id: projects.id });
      return rows.length > 0;
    },

    /** The project's runs whose raw rows were dropped. */
    async droppedRuns(projectId: string): Promise<number> {
      const [row] = rowsOf<{ n: number }>(
        await db.execute(sql`select count(*)::int as n from runs
          where project_id = ${projectId} and raw_dropped_at is not null`),
      );
      return Number(row?.n ?? 0);
    },

    /** Up to `limit` runs due, the longest stored first; `projectId` narrows to one project. */
    async due(limit: number, projectId?: string): Promise<string[]> {
      const result = await db.execute(sql`
        select r.id from runs r join projects p on p.id = r.project_id
        where ${DUE} ${projectId === undefined ? sql`` : sql`and r.project_id = ${projectId}`}
        order by r.created_at, r.id limit ${limit}`);
      return rowsOf<{ id: string }>(result).map((r) => r.id);
    },

    /**
     * Drops the run's raw rows and marks it, in one transaction, if it is still due once its
     * row is locked (a report or a baseline made since it was picked keeps it; another replica
     * that got there first leaves it marked). Returns the rows removed per table, or
     * undefined when it was not dropped. Locks are waited for briefly, the transaction started
     * again each time (lockRetried), so a truncate behind a long read of the run holds no other.
     */
    async dropRaw(runId: string): Promise<Record<string, number> | undefined> {
      return lockRetried(db, `run ${runId}`, async (tx) => {
        const locked = rowsOf<{ id: string }>(
          await tx.execute(sql`
            select r.id from runs r join projects p on p.id = r.project_id
            where r.id = ${runId} and ${DUE}
            for update of r`),
        );
        if (locked.length === 0) return undefined;
        const rows: Record<string, number> = {};
        // The run's own partitions truncated (a run stored before 0031: its rows deleted).
        for (const table of RAW_TABLES)
          rows[table] = await emptyRunRows(tx, table, runId, 'truncate');
        await tx.execute(sql`update runs set raw_dropped_at = now() where id = ${runId}`);
        return rows;
      });
    },
  };
}
export type RetentionRepository = ReturnType<typeof retentionRepository>;
