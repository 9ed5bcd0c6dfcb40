// Reads across a change's stages: the per-proxy gap between two stages, from the
// observations themselves (the kept summaries hold each stage's latencies, not who had them).
import { CopyBinaryReader, type Database, DEFAULT_STAGE, uuidLiteral } from '@meshbench/db';
import { sql } from 'drizzle-orm';
import { fromFloat8Send } from './float8-send.ts';
import { inRunBatchesText, readObservations } from './observation-scope.ts';

export interface StageGaps {
  /** Each proxy's first `to` minus its first `from`, microseconds, in no order. */
  gapsUs: Float64Array;
  onlyFrom: number;
  onlyTo: number;
}

export function stagesRepository(database: Database) {
  return {
    /**
     * For every proxy seen at `from` or `to` of the change: the gap between its first
     * observation at each (as epoch microseconds in float8, as the kept summaries compute
     * latencies), and how many proxies were seen at only one of the two. One row out, the
     * gaps as one bytea: a row per proxy costs the embedded database far more.
     */
    async stageGaps(runId: string, changeId: string, from: string, to: string): Promise<StageGaps> {
      return readObservations(database, async (tx) => {
        // COPY takes no parameters: the change and stages travel as settings.
        await tx.db.execute(
          sql`select set_config('meshbench.change_id', ${changeId}, true),
            set_config('meshbench.gap_from', ${from}, true),
            set_config('meshbench.gap_to', ${to}, true)`,
        );
        const copied = await tx.copyOut(`
          with seen as (
            select proxy, (extract(epoch from at) * 1000000)::float8 as at_us,
              coalesce(stage, '${DEFAULT_STAGE}') as stage
            from observations
            where ${inRunBatchesText(runId)} and run_id = ${uuidLiteral(runId)}
              and change_id = current_setting('meshbench.change_id')
              and coalesce(stage, '${DEFAULT_STAGE}') in
                (current_setting('meshbench.gap_from'), current_setting('meshbench.gap_to'))
          ), firsts as (
            select proxy,
              min(at_us) filter (where stage = current_setting('meshbench.gap_from')) as f,
              min(at_us) filter (where stage = current_setting('meshbench.gap_to')) as t
            from seen group by proxy
          )
          select (count(*) filter (where t is null))::int4,
            (count(*) filter (where f is null))::int4,
            coalesce(string_agg(float8send(t - f), ''::bytea)
              filter (where f is not null and t is not null), ''::bytea)
          from firsts`);
        const reader = new CopyBinaryReader(copied);
        if (!reader.next()) throw new Error('the stage gap query returned no row');
        const onlyFrom = reader.int() ?? 0;
        const onlyTo = reader.int() ?? 0;
        const gapsUs = fromFloat8Send(reader.bytes() ?? Buffer.alloc(0));
        return { gapsUs, onlyFrom, onlyTo };
      });
    },
  };
}
export type StagesRepository = ReturnType<typeof stagesRepository>;
