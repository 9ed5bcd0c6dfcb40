// Projects and their API tokens in Postgres.
import { type Db, DEFAULT_PROJECT_ID, isUuid, tables } from '@meshbench/db';
import { and, asc, eq, isNull, lt, or, sql } from 'drizzle-orm';

const { projects, apiTokens } = tables;

/** The project of runs written without a project token (the schema's default). */
export { DEFAULT_PROJECT_ID };
export type ProjectRow = typeof projects.$inferSelect;
export type TokenRow = typeof apiTokens.$inferSelect;

export function projectsRepository(db: Db) {
  return {
    async insert(row: {
      id: string;
      name: string;
      visibility: string;
    }): Promise<ProjectRow | undefined> {
      const [created] = await db.insert(projects).values(row).onConflictDoNothing().returning();
      return created;
    },
    async find(idOrName: string): Promise<ProjectRow | undefined> {
      const [row] = await db
        .select()
        .from(projects)
        .where(
          isUuid(idOrName)
            ? or(eq(projects.id, idOrName), eq(projects.name, idOrName))
            : eq(projects.name, idOrName),
        )
        .limit(1);
      return row;
    },
    list: () => db.select().from(projects).orderBy(asc(projects.name)),

    async insertToken(row: {
      id: string;
      projectId: string;
      name: string;
      tokenHash: string;
      prefix: string;
    }) {
      const [created] = await db.insert(apiTokens).values(row).returning();
      return created as TokenRow;
    },
    tokens: (projectId: string) =>
      db
        .select()
        .from(apiTokens)
        .where(eq(apiTokens.projectId, projectId))
        .orderBy(asc(apiTokens.createdAt)),
    async tokenById(id: string): Promise<TokenRow | undefined> {
      const [row] = await db.select().from(apiTokens).where(eq(apiTokens.id, id)).limit(1);
      return row;
    },
    /** A live token by its hash; its last use is recorded at most once a minute. */
    async useToken(tokenHash: string): Promise<TokenRow | undefined> {
      const [row] = await db
        .select()
        .from(apiTokens)
        .where(and(eq(apiTokens.tokenHash, tokenHash), isNull(apiTokens.revokedAt)))
        .limit(1);
      if (row && (!row.lastUsedAt || row.lastUsedAt.getTime() < Date.now() - 60_000)) {
        await db
          .update(apiTokens)
          .set({ lastUsedAt: sql`now()` })
          .where(
            and(
              eq(apiTokens.id, row.id),
              or(
                isNull(apiTokens.lastUsedAt),
                lt(apiTokens.lastUsedAt, sql`now() - interval '1 minute'`),
              ),
            ),
          );
      }
      return row;
    },
    async revokeToken(id: string): Promise<boolean> {
      const rows = await db
        .update(apiTokens)
        .set({ revokedAt: sql`now()` })
        .where(and(eq(apiTokens.id, id), isNull(apiTokens.revokedAt)))
        .returning({ id: apiTokens.id });
      return rows.length > 0;
    },
    /** The project's detection settings (null: the defaults); false when there is no project. */
    async setDetection(id: string, detection: Record<string, number> | null): Promise<boolean> {
      const rows = await db
        .update(projects)
        .set({ detection })
        .where(eq(projects.id, id))
        .returning({ id: projects.id });
      return rows.length > 0;
    },
    async countTokens(): Promise<number> {
      const [row] = await db.select({ n: sql<number>`count(*)::int` }).from(apiTokens);
      return row?.n ?? 0;
    },
  };
}
export type ProjectsRepository = ReturnType<typeof projectsRepository>;
