// Prometheus remote-write 1.0 metadata kept per metric family and scope (prometheus_metadata):
// written when a request carries it, read for the families of a request that does not.
import { type Db, tables } from '@meshbench/db';
import { and, eq, sql } from 'drizzle-orm';

const { prometheusMetadata } = tables;

export interface FamilyMetadata {
  type: number;
  help: string;
  unit: string;
}

export function prometheusMetadataRepository(db: Db) {
  return {
    /** Keeps each family's metadata for `scope`, replacing what it had (the latest wins). */
    async save(scope: string, families: Map<string, FamilyMetadata>): Promise<void> {
      if (families.size === 0) return;
      const rows = [...families].map(([family, m]) => ({ scope, family, ...m }));
      await db
        .insert(prometheusMetadata)
        .values(rows)
        .onConflictDoUpdate({
          target: [prometheusMetadata.scope, prometheusMetadata.family],
          set: {
            type: sql`excluded.type`,
            help: sql`excluded.help`,
            unit: sql`excluded.unit`,
            updatedAt: sql`now()`,
          },
        });
    },

    /** The metadata kept for `scope` of those of `families` it has. */
    async of(scope: string, families: string[]): Promise<Map<string, FamilyMetadata>> {
      const out = new Map<string, FamilyMetadata>();
      if (families.length === 0) return out;
      const rows = await db
        .select({
          family: prometheusMetadata.family,
          type: prometheusMetadata.type,
          help: prometheusMetadata.help,
          unit: prometheusMetadata.unit,
        })
        .from(prometheusMetadata)
        // One array parameter, not one per family: a request names hundreds of families.
        .where(
          and(
            eq(prometheusMetadata.scope, scope),
            sql`${prometheusMetadata.family} = any(${sql.param(families)}::text[])`,
          ),
        );
      for (const r of rows) out.set(r.family, { type: r.type, help: r.help, unit: r.unit });
      return out;
    },
  };
}
export type PrometheusMetadataRepository = ReturnType<typeof prometheusMetadataRepository>;
