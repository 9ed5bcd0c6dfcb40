// How many statements a piece of work sends to a test server's database: the query counter
// of the batched-read tests (headlines, the compare read, comparability).
import type { TestServer } from './harness.ts';

/**
 * Statements sent to the database while `work` runs (a transaction counts as one), and the
 * text of those sent as queries.
 */
export async function queriesDuring<T>(
  server: TestServer,
  work: () => Promise<T>,
): Promise<{ n: number; value: T; texts: string[] }> {
  const { database } = server.app;
  const client = (database.db as unknown as { $client: { query: (...a: unknown[]) => unknown } })
    .$client;
  const query = client.query;
  const transaction = database.transaction;
  const copyOut = database.copyOut;
  let n = 0;
  const texts: string[] = [];
  client.query = (...a: unknown[]) => {
    n++;
    const q = a[0] as string | { text?: string } | undefined;
    texts.push(typeof q === 'string' ? q : (q?.text ?? ''));
    return query.apply(client, a);
  };
  const db = database as { transaction: typeof transaction; copyOut: typeof copyOut };
  db.transaction = ((fn: Parameters<typeof transaction>[0]) => {
    n++;
    return transaction.call(database, fn);
  }) as typeof transaction;
  db.copyOut = (q) => {
    n++;
    return copyOut.call(database, q);
  };
  try {
    const value = await work();
    return { n, value, texts };
  } finally {
    client.query = query;
    db.transaction = transaction;
    db.copyOut = copyOut;
  }
}
