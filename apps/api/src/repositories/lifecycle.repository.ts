// The lifecycle phases ingest keeps per run (each phase one row: its entities' first
// arrivals, sorted), read for the scale-up timeline, and the time of a run's last event.
import { type Db, tables } from '@meshbench/db';
import { eq, inArray, sql } from 'drizzle-orm';
import { latestMs } from './epoch.ts';
import { fromFloat8Send } from './float8-send.ts';

const { lifecyclePhases } = tables;

/** A phase as kept: its largest numeric attrs.total and its first arrivals (epoch ms, sorted). */
export interface KeptPhase {
  phase: string;
  attrsTotal: number | null;
  firsts: Float64Array;
}

/** A phase row as kept: its first arrivals from microseconds to milliseconds. */
function keptPhase(r: { phase: string; attrsTotal: number | null; firsts: unknown }): KeptPhase {
  const firsts = fromFloat8Send(r.firsts as Parameters<typeof fromFloat8Send>[0]);
  for (let i = 0; i < firsts.length; i++) firsts[i] = (firsts[i] as number) / 1000;
  return { phase: r.phase, firsts, attrsTotal: r.attrsTotal };
}

export function lifecycleRepository(db: Db) {
  return {
    /** The run's kept phases, in no particular order. */
    async phases(runId: string): Promise<KeptPhase[]> {
      const rows = await db
        .select({
          phase: lifecyclePhases.phase,
          attrsTotal: lifecyclePhases.attrsTotal,
          firsts: lifecyclePhases.firsts,
        })
        .from(lifecyclePhases)
        .where(eq(lifecyclePhases.runId, runId));
      return rows.map(keptPhase);
    },

    /** `phases` of each of several runs, in one query. */
    async phasesOfRuns(runIds: string[]): Promise<Map<string, KeptPhase[]>> {
      const rows = await db
        .select({
          runId: lifecyclePhases.runId,
          phase: lifecyclePhases.phase,
          attrsTotal: lifecyclePhases.attrsTotal,
          firsts: lifecyclePhases.firsts,
        })
        .from(lifecyclePhases)
        .where(inArray(lifecyclePhases.runId, runIds));
      const out = new Map<string, KeptPhase[]>();
      for (const r of rows) {
        const list = out.get(r.runId) ?? [];
        list.push(keptPhase(r));
        out.set(r.runId, list);
      }
      return out;
    },

    /** The time of the run's last lifecycle event (ms), for the axis of an unfinished run. */
    lastEventMs: (runId: string) => latestMs(db, sql`lifecycle_events`, sql`at`, runId),
  };
}
export type LifecycleRepository = ReturnType<typeof lifecycleRepository>;
