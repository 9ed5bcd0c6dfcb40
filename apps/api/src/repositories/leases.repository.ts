// Leases of background work (background_leases): a job that must run once across replicas
// runs on the replica holding its lease. One statement takes or renews it, so two replicas
// asking at once cannot both get it (the row's primary key and ON CONFLICT decide).
import type { Db } from '@meshbench/db';
import { sql } from 'drizzle-orm';
import { rowsOf } from './result-rows.ts';

export function leasesRepository(db: Db) {
  return {
    /**
     * Takes the lease of `job` for `holder` until `ttlMs` from now when it is free, expired
     * or already the holder's (a renewal); true when `holder` holds it after this.
     */
    async take(job: string, holder: string, ttlMs: number): Promise<boolean> {
      const result = await db.execute(sql`
        insert into background_leases (job, holder, expires_at)
        values (${job}, ${holder}, now() + ${ttlMs} * interval '1 millisecond')
        on conflict (job) do update
          set holder = excluded.holder, expires_at = excluded.expires_at
          where background_leases.holder = excluded.holder
             or background_leases.expires_at < now()
        returning holder`);
      return rowsOf<{ holder: string }>(result).length > 0;
    },

    /** Gives the lease back (a replica closing), so another takes it at its next tick. */
    async release(job: string, holder: string): Promise<void> {
      await db.execute(
        sql`delete from background_leases where job = ${job} and holder = ${holder}`,
      );
    },
  };
}
export type LeasesRepository = ReturnType<typeof leasesRepository>;
