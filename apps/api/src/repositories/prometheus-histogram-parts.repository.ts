// The parts of classic histogram points split across remote-write requests
// (prometheus_histogram_parts): each arrival merged into its point's row, the merged rows
// read back to see which points are complete, and their state kept (assembled: a histogram
// point stored; released: its parts stored as series of their own).
import { type Db, tables } from '@meshbench/db';
import { and, eq, inArray, lt, sql } from 'drizzle-orm';
import type { HistogramPart } from '../domain/histogram-part.ts';
import { rowCountOf, rowsOf } from './result-rows.ts';

const { prometheusHistogramParts: parts } = tables;

export type PartState = 'pending' | 'assembled' | 'released';

/** One histogram point's parts, as arrived (a request's) or as merged (the row), in a scope. */
export interface ScopedHistogramPart extends HistogramPart {
  scope: string;
}

export interface MergedParts extends ScopedHistogramPart {
  state: PartState;
  /** The finite `le`s of the assembled point. */
  les: string[] | null;
}

const keyOf = (p: { family: string; labelsKey: string; tMs: number }) =>
  `${p.family}\u0000${p.labelsKey}\u0000${p.tMs}`;

export function prometheusHistogramPartsRepository(db: Db) {
  return {
    /**
     * Merges each point's parts into its row (buckets added, sum, count and the +Inf
     * bucket kept once arrived) and returns the rows as merged. Rows are written in key
     * order, so two requests merging the same points wait for each other, never deadlock.
     */
    async merge(list: ScopedHistogramPart[]): Promise<MergedParts[]> {
      if (list.length === 0) return [];
      const sorted = [...list].sort((a, b) => {
        const x = keyOf(a);
        const y = keyOf(b);
        return x < y ? -1 : x > y ? 1 : 0;
      });
      const rows = await db
        .insert(parts)
        .values(sorted.map((p) => ({ ...p, state: 'pending' })))
        .onConflictDoUpdate({
          target: [parts.scope, parts.family, parts.labelsKey, parts.tMs],
          set: {
            buckets: sql`${parts.buckets} || excluded.buckets`,
            inf: sql`coalesce(excluded.inf, ${parts.inf})`,
            sum: sql`coalesce(excluded.sum, ${parts.sum})`,
            count: sql`coalesce(excluded.count, ${parts.count})`,
            startMs: sql`greatest(excluded.start_ms, ${parts.startMs})`,
            unit: sql`coalesce(excluded.unit, ${parts.unit})`,
            exemplars: sql`coalesce(excluded.exemplars, ${parts.exemplars})`,
            updatedAt: sql`now()`,
          },
        })
        .returning();
      return rows.map((r) => ({
        scope: r.scope,
        family: r.family,
        labelsKey: r.labelsKey,
        tMs: Number(r.tMs),
        tags: r.tags,
        runRef: r.runRef,
        environment: r.environment,
        unit: r.unit,
        startMs: Number(r.startMs),
        buckets: r.buckets,
        inf: r.inf,
        sum: r.sum,
        count: r.count,
        exemplars: r.exemplars,
        state: r.state as PartState,
        les: r.les,
      }));
    },

    /**
     * The finite `le`s of each family label set's latest assembled point, by
     * `family \0 labelsKey`: what a later point of it must have to be complete.
     */
    async knownLes(
      scope: string,
      keys: { family: string; labelsKey: string }[],
    ): Promise<Map<string, string[]>> {
      const out = new Map<string, string[]>();
      if (keys.length === 0) return out;
      const result = await db.execute(sql`
        select distinct on (p.family, p.labels_key) p.family, p.labels_key, p.les
        from ${parts} p
        join unnest(${sql.param(keys.map((k) => k.family))}::text[],
                    ${sql.param(keys.map((k) => k.labelsKey))}::text[]) as k(family, labels_key)
          on p.family = k.family and p.labels_key = k.labels_key
        where p.scope = ${scope} and p.state = 'assembled'
        order by p.family, p.labels_key, p.t_ms desc`);
      for (const r of rowsOf<{ family: string; labels_key: string; les: unknown }>(result)) {
        const les = typeof r.les === 'string' ? JSON.parse(r.les) : r.les;
        out.set(`${r.family}\u0000${r.labels_key}`, les as string[]);
      }
      return out;
    },

    /** Which of `families` have had a point's parts kept for `scope`: histogram families. */
    async knownFamilies(scope: string, families: string[]): Promise<Set<string>> {
      if (families.length === 0) return new Set();
      const rows = await db
        .selectDistinct({ family: parts.family })
        .from(parts)
        .where(and(eq(parts.scope, scope), inArray(parts.family, families)));
      return new Set(rows.map((r) => r.family));
    },

    /** Sets the state of points (with the `le`s of those assembled). */
    async mark(
      scope: string,
      points: { family: string; labelsKey: string; tMs: number; les: string[] | null }[],
      state: PartState,
    ): Promise<void> {
      if (points.length === 0) return;
      await db.execute(sql`
        update ${parts} p
        set state = ${state}, les = k.les::jsonb, updated_at = now()
        from unnest(${sql.param(points.map((p) => p.family))}::text[],
                    ${sql.param(points.map((p) => p.labelsKey))}::text[],
                    ${sql.param(points.map((p) => p.tMs))}::int8[],
                    ${sql.param(points.map((p) => (p.les ? JSON.stringify(p.les) : null)))}::text[])
          as k(family, labels_key, t_ms, les)
        where p.scope = ${scope} and p.family = k.family and p.labels_key = k.labels_key
          and p.t_ms = k.t_ms`);
    },

    /** Points still pending, not merged into for `olderThanMs`: at most `limit`. */
    async stale(olderThanMs: number, limit: number): Promise<MergedParts[]> {
      const rows = await db
        .select()
        .from(parts)
        .where(
          and(
            eq(parts.state, 'pending'),
            lt(parts.updatedAt, sql`now() - ${olderThanMs} * interval '1 millisecond'`),
          ),
        )
        .limit(limit);
      return rows.map((r) => ({
        ...r,
        tMs: Number(r.tMs),
        startMs: Number(r.startMs),
        state: r.state as PartState,
      }));
    },

    /**
     * Drops rows of points assembled or released more than `olderThanMs` ago, but each
     * family label set's latest assembled point (what later points are held to).
     */
    async prune(olderThanMs: number): Promise<number> {
      const result = await db.execute(sql`
        delete from ${parts} p
        where p.state <> 'pending'
          and p.updated_at < now() - ${olderThanMs} * interval '1 millisecond'
          and exists (
            select 1 from ${parts} q
            where q.scope = p.scope and q.family = p.family and q.labels_key = p.labels_key
              and q.state = 'assembled' and q.t_ms > p.t_ms)`);
      return rowCountOf(result);
    },
  };
}
export type PrometheusHistogramPartsRepository = ReturnType<
  typeof prometheusHistogramPartsRepository
>;
