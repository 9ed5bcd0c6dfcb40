// Runs in Postgres: stored, listed, found by id or slug, and their windows (start to finish)
// for the metrics a write or a new run is matched to.
import { type Db, isUuid, tables } from '@meshbench/db';
import type { CreateRunBody, ListRunsQuery, RunFacets, RunSort, Topology } from '@meshbench/schema';
import { and, asc, count, desc, eq, gte, ilike, inArray, lt, or, type SQL, sql } from 'drizzle-orm';
import type { AnyPgColumn } from 'drizzle-orm/pg-core';
import { rowsOf } from './result-rows.ts';
import { markRunsWritten } from './run-facts.repository.ts';
import { beginFinish } from './run-finish.repository.ts';
import { emptyRunRows, lockRetried } from './run-partitions.ts';

const { runs, runDeletions } = tables;
export type RunRow = typeof runs.$inferSelect;

/** A run's identity and window (epoch ms), what metric points are matched against. */
export interface RunWindow {
  id: string;
  slug: string;
  projectId: string;
  environment: string | null;
  startedMs: number;
  finishedMs: number | null;
  topology: Topology;
}

const iso = (ms: number) => new Date(ms).toISOString();

const windowColumns = sql`id, slug, project_id, environment, topology,
    (extract(epoch from started_at) * 1000)::float8 as started_ms,
    (extract(epoch from finished_at) * 1000)::float8 as finished_ms`;

const toWindow = (r: {
  id: string;
  slug: string;
  project_id: string;
  environment: string | null;
  topology: Topology;
  started_ms: unknown;
  finished_ms: unknown;
}): RunWindow => ({
  id: r.id,
  slug: r.slug,
  projectId: r.project_id,
  environment: r.environment,
  topology: r.topology ?? {},
  startedMs: Number(r.started_ms),
  finishedMs: r.finished_ms === null ? null : Number(r.finished_ms),
});

/**
 * A version's leading numbers as numbers ("v1.10.0-rc1" -> {1,10,0}), then the whole text
 * byte by byte: the order of compareVersions (domain/versions.ts), so 1.10.0 follows 1.9.5.
 */
const versionNumbers = sql`(string_to_array(substring(${runs.meshVersion} from '^[vV]?([0-9]+(?:[.][0-9]+)*)'), '.')::numeric[])`;
const versionText = sql`(${runs.meshVersion} collate "C")`;
const byVersion = (dir: 'asc' | 'desc') =>
  dir === 'asc'
    ? [sql`${versionNumbers} asc nulls last`, sql`${versionText} asc nulls last`]
    : [sql`${versionNumbers} desc nulls first`, sql`${versionText} desc nulls first`];

/** Contains `text`, ignoring case: a LIKE pattern with its wildcards escaped. */
const containing = (text: string) => `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

// Every order ends on the id, so pages never repeat or skip a run.
const ORDER: Record<RunSort, SQL[]> = {
  startedAt: [asc(runs.startedAt), asc(runs.id)],
  '-startedAt': [desc(runs.startedAt), desc(runs.id)],
  mesh: [asc(runs.meshName), ...byVersion('asc'), desc(runs.startedAt), desc(runs.id)],
  '-mesh': [desc(runs.meshName), ...byVersion('desc'), desc(runs.startedAt), desc(runs.id)],
  benchmark: [asc(runs.benchmark), desc(runs.startedAt), desc(runs.id)],
  '-benchmark': [desc(runs.benchmark), desc(runs.startedAt), desc(runs.id)],
  scenario: [asc(runs.scenario), desc(runs.startedAt), desc(runs.id)],
  '-scenario': [desc(runs.scenario), desc(runs.startedAt), desc(runs.id)],
  status: [asc(runs.status), desc(runs.startedAt), desc(runs.id)],
  '-status': [desc(runs.status), desc(runs.startedAt), desc(runs.id)],
};

/** The runs a caller may read: every public project's, and the private ones it may see. */
function readable(privateProjects: 'all' | string | null): SQL | undefined {
  if (privateProjects === 'all') return undefined;
  return or(
    sql`${runs.projectId} in (select id from projects where visibility = 'public')`,
    privateProjects ? eq(runs.projectId, privateProjects) : undefined,
  );
}

export function runsRepository(db: Db) {
  return {
    async insert(row: {
      id: string;
      slug: string;
      projectId: string;
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
          projectId: row.projectId,
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
      const [row] = await db
        .select()
        .from(runs)
        .where(
          isUuid(idOrSlug)
            ? or(eq(runs.id, idOrSlug), eq(runs.slug, idOrSlug))
            : eq(runs.slug, idOrSlug),
        )
        .limit(1);
      return row;
    },

    /** `find` of each of `refs` in one query: the runs found, by id or share slug, any order. */
    async findMany(refs: string[]): Promise<RunRow[]> {
      if (refs.length === 0) return [];
      const uuids = refs.filter(isUuid);
      return db
        .select()
        .from(runs)
        .where(
          uuids.length > 0
            ? or(inArray(runs.id, uuids), inArray(runs.slug, refs))
            : inArray(runs.slug, refs),
        );
    },

    /** The project a deleted run was in, from its audit row; undefined if none was deleted. */
    async deletedProjectOf(runId: string): Promise<string | undefined> {
      const [row] = await db
        .select({ projectId: runDeletions.projectId })
        .from(runDeletions)
        .where(eq(runDeletions.deletedRunId, runId))
        .limit(1);
      return row?.projectId;
    },

    /**
     * Deletes the run and every row of it, in one transaction: each table of the schema with
     * a `run_id` column (read from the catalog, so a table added later is not missed; a
     * partitioned table through its parent, the run's own partition dropped), then the run. The run's row is locked first, so
     * a write to it that checks its foreign key waits and then fails. The deletion is kept in
     * `run_deletions` (who, when, rows per table) in the same transaction. Its statements wait
     * for locks briefly, the transaction started again each time (lockRetried): a drop waiting
     * behind a long read does not hold the table's other reads and writes. Returns the rows
     * removed per table (the run's own as `runs`), or undefined when the run was gone already.
     */
    async delete(
      runId: string,
      audit: { id: string; deletedBy: string },
    ): Promise<{ run: RunRow; rows: Record<string, number> } | undefined> {
      return lockRetried(db, `run ${runId}`, async (tx) => {
        const [run] = await tx.select().from(runs).where(eq(runs.id, runId)).for('update');
        if (!run) return undefined;
        const tables = rowsOf<{ name: string }>(
          await tx.execute(sql`
            select c.relname as name from pg_attribute a
            join pg_class c on c.oid = a.attrelid
            join pg_namespace n on n.oid = c.relnamespace
            where a.attname = 'run_id' and not a.attisdropped and c.relkind in ('r', 'p')
              and not c.relispartition and n.nspname = current_schema()
            order by c.relname`),
        ).map((r) => r.name);
        const rows: Record<string, number> = {};
        for (const table of tables) rows[table] = await emptyRunRows(tx, table, runId, 'drop');
        await tx.delete(runs).where(eq(runs.id, runId));
        rows.runs = 1;
        await tx.insert(runDeletions).values({
          id: audit.id,
          deletedRunId: run.id,
          slug: run.slug,
          projectId: run.projectId,
          benchmark: run.benchmark,
          deletedBy: audit.deletedBy,
          rows,
        });
        return { run, rows };
      });
    },

    /**
     * privateProjects: whose private runs show besides every public project's. match: how the
     * text filters (mesh, version, benchmark, scenario, platform) compare: `exact` (the
     * default: gates and history mean one benchmark) or `contains`, ignoring case (the list).
     */
    async list(
      q: ListRunsQuery & {
        labels: [string, string][];
        privateProjects: 'all' | string | null;
        match?: 'exact' | 'contains';
      },
    ) {
      const text = (column: AnyPgColumn, value: string | undefined) =>
        value === undefined || value === ''
          ? undefined
          : q.match === 'contains'
            ? ilike(column, containing(value))
            : eq(column, value);
      const like = q.q ? containing(q.q) : undefined;
      const where = and(
        readable(q.privateProjects),
        q.project ? eq(runs.projectId, q.project) : undefined,
        text(runs.meshName, q.mesh),
        text(runs.meshVersion, q.version),
        text(runs.benchmark, q.benchmark),
        text(runs.scenario, q.scenario),
        text(runs.platform, q.platform),
        q.status ? eq(runs.status, q.status) : undefined,
        q.from ? gte(runs.startedAt, new Date(q.from)) : undefined,
        q.to ? lt(runs.startedAt, new Date(q.to)) : undefined,
        q.labels.length > 0
          ? sql`${runs.labels} @> ${JSON.stringify(Object.fromEntries(q.labels))}::jsonb`
          : undefined,
        like
          ? or(
              ilike(runs.benchmark, like),
              ilike(runs.scenario, like),
              ilike(runs.meshName, like),
              ilike(runs.meshVersion, like),
              ilike(runs.platform, like),
              sql`${runs.labels}::text ilike ${like}`,
            )
          : undefined,
      );
      const [rows, [total]] = await Promise.all([
        db
          .select()
          .from(runs)
          .where(where)
          .orderBy(...ORDER[q.sort])
          .limit(q.limit)
          .offset(q.offset),
        db.select({ n: count() }).from(runs).where(where),
      ]);
      return { rows, total: total?.n ?? 0 };
    },

    /** The runs among `ids` the caller may read. */
    async readableByIds(ids: string[], privateProjects: 'all' | string | null): Promise<RunRow[]> {
      const uuids = ids.filter(isUuid);
      if (uuids.length === 0) return [];
      return db
        .select()
        .from(runs)
        .where(and(readable(privateProjects), inArray(runs.id, uuids)));
    },

    /** Distinct values for the list's filters, over the runs the caller may read. */
    async facets(privateProjects: 'all' | string | null): Promise<RunFacets> {
      const where = readable(privateProjects);
      const distinct = async (column: SQL) => {
        const result = await db
          .selectDistinct({ v: column })
          .from(runs)
          .where(where)
          .orderBy(asc(column));
        return result.map((r) => r.v).filter((v): v is string => typeof v === 'string' && v !== '');
      };
      const keys = await db.execute<{ k: string }>(
        sql`select distinct jsonb_object_keys(${runs.labels}) as k from ${runs} ${where ? sql`where ${where}` : sql``} order by k`,
      );
      const counts = await db.execute<{ benchmark: string; scenario: string; runs: number }>(
        sql`select benchmark, scenario, count(*)::int as runs from ${runs} ${where ? sql`where ${where}` : sql``}
          group by benchmark, scenario order by runs desc, benchmark, scenario`,
      );
      return {
        meshes: await distinct(sql`${runs.meshName}`),
        versions: await distinct(sql`${runs.meshVersion}`),
        benchmarks: await distinct(sql`${runs.benchmark}`),
        scenarios: await distinct(sql`${runs.scenario}`),
        platforms: await distinct(sql`${runs.platform}`),
        labelKeys: rowsOf<{ k: string }>(keys).map((r) => r.k),
        benchmarkRuns: rowsOf<{ benchmark: string; scenario: string; runs: number }>(counts).map(
          (r) => ({ benchmark: r.benchmark, scenario: r.scenario, runs: Number(r.runs) }),
        ),
      };
    },

    /** Finishes the run, and begins finishing it at `firstStep` (run_finishes), at once. */
    async finish(
      id: string,
      finishedAt: Date,
      status: string,
      firstStep: string,
    ): Promise<RunRow | undefined> {
      return db.transaction(async (tx) => {
        const [row] = await tx
          .update(runs)
          .set({ finishedAt, status })
          .where(eq(runs.id, id))
          .returning();
        if (row) await beginFinish(tx, id, firstStep);
        if (row) await markRunsWritten(tx, [id]);
        return row;
      });
    },

    /** The windows of runs named by id or slug. */
    async windowsByRef(refs: string[]): Promise<RunWindow[]> {
      if (refs.length === 0) return [];
      const ids = refs.filter(isUuid);
      const result = await db.execute(sql`select ${windowColumns} from runs
        where slug = any(${sql.param(refs)}::text[])
          or id = any(${sql.param(ids)}::uuid[])`);
      return rowsOf<Parameters<typeof toWindow>[0]>(result).map(toWindow);
    },

    /**
     * The windows of runs of these environments (null: runs without one) that touch
     * [from, to], of one project (null: of any).
     */
    async windowsIn(
      environments: (string | null)[],
      fromMs: number,
      toMs: number,
      projectId: string | null,
    ): Promise<RunWindow[]> {
      const named = environments.filter((e): e is string => e !== null);
      const unnamed = environments.some((e) => e === null);
      const result = await db.execute(sql`select ${windowColumns} from runs
        where (environment = any(${sql.param(named)}::text[])
            or (${unnamed}::boolean and environment is null))
          and (${projectId}::uuid is null or project_id = ${projectId}::uuid)
          and started_at <= ${iso(toMs)}::timestamptz
          and (finished_at is null or finished_at >= ${iso(fromMs)}::timestamptz)
        order by started_at desc
        limit 1000`);
      return rowsOf<Parameters<typeof toWindow>[0]>(result).map(toWindow);
    },

    async isEmpty(): Promise<boolean> {
      const rows = await db.select({ id: runs.id }).from(runs).limit(1);
      return rows.length === 0;
    },
  };
}
export type RunsRepository = ReturnType<typeof runsRepository>;
