// Reads behind a change's tail: the slow first applications, the incidents near them, and
// the attribute values of every proxy counted in and out of the tail.
import { type Database, DEFAULT_STAGE } from '@meshbench/db';
import { type SQL, sql } from 'drizzle-orm';
import type { TailCuts } from '../domain/clock-correction.ts';
import type { AttributeCount } from '../domain/tail-attribution.ts';
import type { TailIncident, TailObservation } from '../domain/tail-causes.ts';
import { formatTimestampUs } from '../domain/timestamp-text.ts';
import { inRunBatches, readObservations } from './observation-scope.ts';
import { num, numOrNull, rowsOf } from './result-rows.ts';

/** The tail is of the applied stage (an observation without a stage), as its summary is. */
const applied = (column: SQL) => sql`coalesce(${column}, ${DEFAULT_STAGE}) = ${DEFAULT_STAGE}`;

/** A join that gives each observation `alias` its node's cut (cut_at, null: the default). */
const cutsJoin = (cuts: TailCuts, alias: string) =>
  cuts.nodes.length === 0
    ? sql``
    : sql`left join (select * from unnest(${sql.param(cuts.nodes)}::text[], ${sql.param(
        cuts.cutsUs.map(formatTimestampUs),
      )}::timestamptz[]) as nc(node, cut_at)) cut on cut.node = ${sql.raw(alias)}.node`;
/** The cut of the observation joined by cutsJoin, as a timestamp. */
const cutOf = (cuts: TailCuts) =>
  cuts.nodes.length === 0
    ? sql`${formatTimestampUs(cuts.defaultUs)}::timestamptz`
    : sql`coalesce(cut.cut_at, ${formatTimestampUs(cuts.defaultUs)}::timestamptz)`;

export function tailRepository(database: Database) {
  const { db } = database;
  return {
    /**
     * Each proxy's first application of the change (its earliest observation; a tie at the
     * same instant prefers the earliest batch, then a row that carries a cause), kept when
     * it is stamped after its node's cut (its latency is over the threshold). The cuts are
     * whole microseconds, as the timestamps are, so a threshold taken from the kept summary
     * compares exactly.
     */
    async slowFirstApplications(
      runId: string,
      changeId: string,
      cuts: TailCuts,
    ): Promise<TailObservation[]> {
      // Only proxies with some observation past the earliest cut can be in the tail: they are
      // found with a filter (a superset, 1 ms of slack), and only they are sorted by proxy to
      // find their first application, which is then held to its node's exact cut.
      const earliestUs = Math.min(cuts.defaultUs, ...cuts.cutsUs);
      const result = await readObservations(database, (tx) =>
        tx.db.execute(sql`
        with late as (
          select distinct proxy from observations
          where ${inRunBatches(runId)} and run_id = ${runId} and change_id = ${changeId}
            and ${applied(sql`stage`)}
            and at >= ${formatTimestampUs(earliestUs)}::timestamptz - interval '1 millisecond'
        )
        select f.proxy, f.node, f.cause, (extract(epoch from f.at) * 1000000)::float8 as at_us
        from (
          select distinct on (o.proxy) o.proxy, o.node, o.cause, o.at
          from observations o
          join late l on l.proxy = o.proxy
          where ${inRunBatches(runId, 'o')} and o.run_id = ${runId} and o.change_id = ${changeId}
            and ${applied(sql`o.stage`)}
          order by o.proxy, o.at, o.batch_id, o.cause nulls last
        ) f
        ${cutsJoin(cuts, 'f')}
        where f.at > ${cutOf(cuts)}`),
      );
      return rowsOf<{ proxy: string; node: string | null; cause: string | null; at_us: unknown }>(
        result,
      ).map((r) => ({ proxy: r.proxy, node: r.node, cause: r.cause, atUs: num(r.at_us) }));
    },

    /**
     * The run's incidents that could explain a tail between fromUs (the change) and toUs
     * (its slowest observation): about one of the proxies, or (naming no proxy) about one
     * of the nodes, and touching that window.
     */
    async incidentsNear(
      runId: string,
      scope: { proxies: string[]; nodes: string[]; fromUs: number; toUs: number },
    ): Promise<TailIncident[]> {
      if (scope.proxies.length === 0 && scope.nodes.length === 0) return [];
      const result = await db.execute(sql`
        select kind, node, proxy,
          (extract(epoch from "from") * 1000000)::float8 as from_us,
          (extract(epoch from "to") * 1000000)::float8 as to_us
        from incidents
        where run_id = ${runId}
          and "from" <= ${formatTimestampUs(scope.toUs)}::timestamptz
          and ("to" is null or "to" >= ${formatTimestampUs(scope.fromUs)}::timestamptz)
          and (proxy = any(${sql.param(scope.proxies)}::text[])
            or (proxy is null and node = any(${sql.param(scope.nodes)}::text[])))`);
      return rowsOf<{
        kind: string;
        node: string | null;
        proxy: string | null;
        from_us: unknown;
        to_us: unknown;
      }>(result).map((r) => ({
        kind: r.kind,
        node: r.node,
        proxy: r.proxy,
        fromUs: num(r.from_us),
        toUs: numOrNull(r.to_us),
      }));
    },

    /**
     * Every attribute value the change's proxies carry, counted over each proxy's first
     * application (chosen as slowFirstApplications chooses it): overall, and in the tail
     * (stamped after its node's cut, or nobody when `cuts` is null). Values no tail proxy
     * carries are left out. The values: `node`; `cause` (the runner's); each `attrs` key
     * (`attrs.<key>` for a key named node, cause or incident); `incident`, the kind of each
     * incident on the proxy (or, naming no proxy, on its node) that overlaps change ->
     * application (the tail causes' rule), and `incident.<key>` for its attrs. A proxy
     * counts once per value.
     */
    async attributeCounts(
      runId: string,
      changeId: string,
      changeAtUs: number,
      cuts: TailCuts | null,
      /** False when the change has no repeats: every row is a first application, no sort. */
      repeats: boolean,
    ): Promise<{ total: number; tailCount: number; counts: AttributeCount[] }> {
      // Compared as timestamps, each against its node's cut (whole microseconds): exact.
      const slow = cuts === null ? sql`false` : sql`o.at > ${cutOf(cuts)}`;
      const join = cuts === null ? sql`` : cutsJoin(cuts, 'o');
      const changeAt = sql`${formatTimestampUs(changeAtUs)}::timestamptz`;
      const firsts = (only: SQL = sql`true`, distinct = repeats) =>
        distinct
          ? sql`select distinct on (o.proxy) o.proxy, o.node, o.cause, o.attrs, o.at, ${slow} as slow
            from observations o ${join}
            where ${inRunBatches(runId, 'o')} and o.run_id = ${runId} and o.change_id = ${changeId}
              and ${applied(sql`o.stage`)} and ${only}
            order by o.proxy, o.at, o.batch_id, o.cause nulls last`
          : // Each row is a first application: only what is counted is kept.
            sql`select o.node, o.cause, o.attrs, ${slow} as slow
            from observations o ${join}
            where ${inRunBatches(runId, 'o')} and o.run_id = ${runId} and o.change_id = ${changeId}
              and ${applied(sql`o.stage`)}`;
      type Row = {
        attribute: string | null;
        value: string | null;
        in_tail: unknown;
        overall: unknown;
      };
      const rows = await readObservations(database, async (tx) => {
        // Counting is hashing (a few thousand groups); without statistics the planner would
        // sort 178,000 rows to group them.
        await tx.db.execute(sql.raw('set local enable_sort to off'));
        // The first applications are read once, then counted: the totals, and by value.
        const own = rowsOf<Row>(
          await tx.db.execute(sql`
          with firsts as materialized (${firsts()}),
          pairs as (
            select 'node' as attribute, node as value, slow from firsts where node is not null
            union all
            select 'cause', cause, slow from firsts where cause <> ''
            union all
            select case when a.key in ('node', 'cause', 'incident') then 'attrs.' || a.key
              else a.key end, a.value, f.slow
            from firsts f cross join lateral jsonb_each_text(f.attrs) a
            where f.attrs is not null
          )
          select null as attribute, null as value,
            count(*) filter (where slow) as in_tail, count(*) as overall
          from firsts
          union all
          select attribute, value, count(*) filter (where slow), count(*)
          from pairs group by attribute, value
          having count(*) filter (where slow) > 0`),
        );
        // Incidents touch few proxies: only theirs (named, or on a named node) are read again.
        const incidents = await tx.db.execute(sql`
          select 1 from incidents
          where run_id = ${runId} and ("to" is null or "to" >= ${changeAt}) limit 1`);
        if (rowsOf(incidents).length === 0) return own;
        const near = sql`(o.proxy in (select proxy from run_incidents where proxy is not null)
          or o.node in (select node from run_incidents where proxy is null))`;
        const touched = rowsOf<Row>(
          await tx.db.execute(sql`
          with run_incidents as materialized (
            select kind, node, proxy, "from", attrs from incidents
            where run_id = ${runId} and ("to" is null or "to" >= ${changeAt})
          ),
          firsts as materialized (${firsts(near, true)}),
          hits as (
            select f.proxy, f.slow, i.kind, i.attrs
            from firsts f join run_incidents i on i.proxy = f.proxy
            where i."from" <= f.at
            union all
            select f.proxy, f.slow, i.kind, i.attrs
            from firsts f join run_incidents i on i.node = f.node
            where i.proxy is null and i."from" <= f.at
          ),
          pairs as (
            select h.proxy, 'incident' as attribute, h.kind as value, h.slow from hits h
            union
            select h.proxy, 'incident.' || a.key, a.value, h.slow
            from hits h cross join lateral jsonb_each_text(coalesce(h.attrs, '{}'::jsonb)) a
          )
          select attribute, value, count(*) filter (where slow) as in_tail, count(*) as overall
          from pairs group by attribute, value
          having count(*) filter (where slow) > 0`),
        );
        return [...own, ...touched];
      });
      let total = 0;
      let tailCount = 0;
      const counts: AttributeCount[] = [];
      for (const r of rows) {
        if (r.attribute === null) {
          total = num(r.overall);
          tailCount = num(r.in_tail);
        } else {
          counts.push({
            attribute: r.attribute,
            value: r.value ?? '',
            inTail: num(r.in_tail),
            overall: num(r.overall),
          });
        }
      }
      return { total, tailCount, counts };
    },
  };
}
export type TailRepository = ReturnType<typeof tailRepository>;
