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

/**
 * Text as an SQL literal for a statement that takes no parameters (COPY): the escape form,
 * so that a quote or backslash in a stage or change id is read as itself whatever
 * standard_conforming_strings says. Text holds no NUL in Postgres; none gets here.
 */
function textLiteral(value: string): string {
  if (value.includes('\0')) throw new Error('text with a NUL byte');
  return `E'${value.replaceAll('\\', '\\\\').replaceAll("'", "''")}'`;
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
      const stage = `coalesce(stage, ${textLiteral(DEFAULT_STAGE)})`;
      const [f, t] = [textLiteral(from), textLiteral(to)];
      return readObservations(database, async (tx) => {
        // One group per proxy: hashed, not sorted (without statistics the planner would sort
        // 356,000 rows by proxy under the text collation).
        await tx.db.execute(sql.raw('set local enable_sort to off'));
        // Firsts compared as timestamps, and their difference taken once per proxy: exact
        // to the microsecond, with no numeric arithmetic per observation.
        const copied = await tx.copyOut(`
          with firsts as (
            select proxy,
              min(at) filter (where ${stage} = ${f}) as f,
              min(at) filter (where ${stage} = ${t}) as t
            from observations
            where ${inRunBatchesText(runId)} and run_id = ${uuidLiteral(runId)}
              and change_id = ${textLiteral(changeId)} and ${stage} in (${f}, ${t})
            group by proxy
          )
          select (count(*) filter (where t is null))::int4,
            (count(*) filter (where f is null))::int4,
            coalesce(string_agg(float8send((extract(epoch from t - f) * 1000000)::float8), ''::bytea)
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
