// A database of its own on DATABASE_URL's server, empty, for a test that starts replicas on
// it (their migrations, their background work) without another test's rows; dropped after.
import pg from 'pg';

export interface EmptyDatabase {
  url: string;
  drop(): Promise<void>;
}

async function admin(url: string, statement: string): Promise<void> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    await c.query(statement);
  } finally {
    await c.end();
  }
}

/** `name`: lower case letters, digits and _ (it is put in the statements as it is). */
export async function emptyDatabase(serverUrl: string, name: string): Promise<EmptyDatabase> {
  if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`database name ${name}?`);
  await admin(serverUrl, `drop database if exists ${name} with (force)`);
  await admin(serverUrl, `create database ${name}`);
  const own = new URL(serverUrl);
  own.pathname = `/${name}`;
  return {
    url: own.toString(),
    drop: () => admin(serverUrl, `drop database if exists ${name} with (force)`),
  };
}
