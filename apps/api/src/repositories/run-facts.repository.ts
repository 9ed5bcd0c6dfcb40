// The history facts kept per finished run (run_facts, run_metrics): read for many runs in one
// query, replaced whole when recomputed, marked stale by a write to a finished run.
import { type Db, tables } from '@meshbench/db';
import { sql } from 'drizzle-orm';
import { rowsOf } from './result-rows.ts';

const { runFacts, runMetrics } = tables;

/** One run's kept facts as stored: its metrics, load steps and the versions that date them. */
export interface KeptFacts {
  dataVersion: number;
  factsVersion: number | null;
  load: Record<string, unknown>[];
  metrics: { metric: string; value: number; accuracy: Record<string, unknown> | null }[];
}

/** One run's facts to keep, computed from its data at `version`. */
export interface KeptFactsEntry {
  runId: string;
  version: number;
  facts: {
    load: Record<string, unknown>[];
    metrics: { metric: string; value: number; accuracy: Record<string, unknown> | null }[];
  };
}

/** Rows an insert statement carries at most. */
const STORE_CHUNK = 500;

/**
 * Writes reached these runs: each run's data version goes up by one. It is what a live view
 * polls (GET /runs/{id}/live: the event id), and for a finished run it marks the kept facts
 * as no longer current. Called by each write inside its own transaction, so the mark commits
 * with the rows it speaks for or not at all: a write can never be kept while the facts
 * computed without it still count as current, and a live view that read version v has seen
 * every write up to v. A history computing the run's facts at the same time read the
 * version before this one, and keeps what it computed as stale. Rows are locked in run id
 * order, as `store` locks them, so two transactions that touch several runs do not deadlock;
 * each write calls it last, so the row lock is held only until its commit.
 */
export async function markRunsWritten(db: Pick<Db, 'execute'>, runIds: string[]) {
  if (runIds.length === 0) return;
  await db.execute(sql`
    insert into run_facts (run_id, data_version)
    select id, 1 from runs where id = any(${sql.param(runIds)}::uuid[])
    order by id
    on conflict (run_id) do update set data_version = run_facts.data_version + 1`);
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * `markRunsWritten` as one statement with its run ids as literals, for a write that sends it
 * with its COMMIT (Database.copyThenCommit); null when there are no runs. The ids must be
 * uuids (they are checked, never quoted blindly).
 */
export function markRunsWrittenStatement(runIds: string[]): string | null {
  if (runIds.length === 0) return null;
  for (const id of runIds) {
    if (!UUID.test(id)) throw new Error(`not a run id: ${JSON.stringify(id).slice(0, 60)}`);
  }
  const ids = [...runIds].sort().map((id) => `'${id}'`);
  return `insert into run_facts (run_id, data_version)
    select id, 1 from runs where id = any(array[${ids.join(', ')}]::uuid[])
    order by id
    on conflict (run_id) do update set data_version = run_facts.data_version + 1`;
}

export function runFactsRepository(db: Db) {
  return {
    /**
     * A run's data version (0 before its first write), status, and whether its finish is
     * still under way (run_finishes has a next step), in one cheap read: what a live view
     * polls. Undefined: no such run (deleted).
     */
    async liveMark(
      runId: string,
    ): Promise<{ version: number; status: string; finishing: boolean } | undefined> {
      const result = await db.execute(sql`
        select r.status, coalesce(f.data_version, 0) as version,
               (fin.step is not null) as finishing
          from runs r
          left join run_facts f on f.run_id = r.id
          left join run_finishes fin on fin.run_id = r.id
         where r.id = ${runId}`);
      const [row] = rowsOf<{ status: string; version: number | string; finishing: boolean }>(
        result,
      );
      return row
        ? { version: Number(row.version), status: row.status, finishing: row.finishing === true }
        : undefined;
    },

    /**
     * The kept facts of the runs named (those that have a run_facts row), in one query: every
     * metric, or only `metric` and those named in `also` (a history reads one).
     */
    async ofRuns(
      runIds: string[],
      metric?: string,
      also: readonly string[] = [],
    ): Promise<Map<string, KeptFacts>> {
      const out = new Map<string, KeptFacts>();
      if (runIds.length === 0) return out;
      const result = await db.execute(sql`
        select f.run_id, f.data_version, f.facts_version, f.load, m.metric, m.value, m.accuracy
          from run_facts f left join run_metrics m on m.run_id = f.run_id
           ${metric === undefined ? sql`` : sql`and m.metric = any(${sql.param([metric, ...also])}::text[])`}
         where f.run_id = any(${sql.param(runIds)}::uuid[])`);
      for (const r of rowsOf<{
        run_id: string;
        data_version: number;
        facts_version: number | null;
        load: Record<string, unknown>[];
        metric: string | null;
        value: number | null;
        accuracy: Record<string, unknown> | null;
      }>(result)) {
        let f = out.get(r.run_id);
        if (!f) {
          f = {
            dataVersion: r.data_version,
            factsVersion: r.facts_version,
            load: r.load,
            metrics: [],
          };
          out.set(r.run_id, f);
        }
        if (r.metric !== null && r.value !== null)
          f.metrics.push({ metric: r.metric, value: Number(r.value), accuracy: r.accuracy });
      }
      return out;
    },

    /** The metrics kept for any of the runs named. */
    async metricNames(runIds: string[]): Promise<string[]> {
      if (runIds.length === 0) return [];
      const result = await db.execute(sql`
        select distinct metric from run_metrics where run_id = any(${sql.param(runIds)}::uuid[])`);
      return rowsOf<{ metric: string }>(result).map((r) => r.metric);
    },

    /**
     * Replaces runs' kept facts with ones computed from `version` (the data_version read
     * before the run's data was): a write since then leaves them stale, to be computed again.
     * One transaction for all of them (a first read of a long history keeps a thousand runs').
     * A run kept for the first time has its change points looked for later when
     * `alertsPending` (its finish does it), else counts as looked for already (a history
     * read keeping an older run's facts raises no alert on it).
     */
    async store(
      entries: KeptFactsEntry[],
      options: { alertsPending?: boolean } = {},
    ): Promise<void> {
      if (entries.length === 0) return;
      // In run id order, as markRunsWritten locks them.
      entries = [...entries].sort((x, y) => (x.runId < y.runId ? -1 : x.runId > y.runId ? 1 : 0));
      await db.transaction(async (tx) => {
        const ids = entries.map((e) => e.runId);
        await tx.execute(
          sql`delete from run_metrics where run_id = any(${sql.param(ids)}::uuid[])`,
        );
        const metrics = entries.flatMap((e) =>
          e.facts.metrics.map((m) => ({ runId: e.runId, ...m })),
        );
        for (let i = 0; i < metrics.length; i += STORE_CHUNK)
          await tx.insert(runMetrics).values(metrics.slice(i, i + STORE_CHUNK));
        for (let i = 0; i < entries.length; i += STORE_CHUNK) {
          await tx
            .insert(runFacts)
            .values(
              entries.slice(i, i + STORE_CHUNK).map((e) => ({
                runId: e.runId,
                dataVersion: e.version,
                factsVersion: e.version,
                alertsVersion: options.alertsPending ? null : e.version,
                load: e.facts.load,
              })),
            )
            .onConflictDoUpdate({
              target: runFacts.runId,
              set: {
                factsVersion: sql`excluded.facts_version`,
                load: sql`excluded.load`,
                computedAt: sql`now()`,
              },
            });
        }
      });
    },

    /**
     * Finished runs with no kept facts (finished before facts were kept) whose finish is not
     * in progress (run_finishes), the oldest first.
     */
    async withoutFacts(limit: number, projectId?: string): Promise<string[]> {
      const result = await db.execute(sql`
        select r.id from runs r
         where r.status = 'finished'
           ${projectId === undefined ? sql`` : sql`and r.project_id = ${projectId}`}
           and not exists (select 1 from run_facts f where f.run_id = r.id)
           and not exists (select 1 from run_finishes u where u.run_id = r.id and u.step is not null)
         order by r.finished_at
         limit ${limit}`);
      return rowsOf<{ id: string }>(result).map((r) => r.id);
    },

    /** The series' change points were looked for with the run's data at `version`. */
    async alertsLookedFor(runId: string, version: number): Promise<void> {
      await db.execute(
        sql`update run_facts set alerts_version = ${version} where run_id = ${runId}`,
      );
    },

    /** Looking at the run's change points failed: it waits RECHECK_SETTLED_MS again. */
    async postpone(runId: string): Promise<void> {
      await db.execute(sql`update run_facts set computed_at = now() where run_id = ${runId}`);
    },

    /**
     * Finished runs whose change points were not looked for at their data's version (a write
     * came after, or their finish did not get that far), kept at least `settledMs` ago (a
     * finish in progress is left to itself), the longest waiting first.
     */
    async alertsBehind(limit: number, settledMs: number, projectId?: string): Promise<string[]> {
      const result = await db.execute(sql`
        select f.run_id from run_facts f join runs r on r.id = f.run_id
         where r.status = 'finished'
           ${projectId === undefined ? sql`` : sql`and r.project_id = ${projectId}`}
           and f.alerts_version is distinct from f.data_version
           and f.computed_at < now() - ${settledMs} * interval '1 millisecond'
         order by f.computed_at
         limit ${limit}`);
      return rowsOf<{ run_id: string }>(result).map((r) => r.run_id);
    },
  };
}
export type RunFactsRepository = ReturnType<typeof runFactsRepository>;
