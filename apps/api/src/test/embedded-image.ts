// A migrated embedded database's files, made once per set of migrations and PGlite version
// and kept in the system's temp directory, so that each test file's in-memory database starts
// from a copy of them instead of a new cluster: PGlite's initdb runs in wasm and took 3-24 s
// a file here (more under load), a copy about a fifth of that.
import { createHash } from 'node:crypto';
import {
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { type Database, migrateDatabase, migrationsFolder, openDatabase } from '@meshbench/db';

/** The PGlite package's version, found beside its entry point as the db package resolves it. */
function pgliteVersion(): string {
  // Resolved from the db package, which depends on PGlite (this package does not).
  const require = createRequire(join(migrationsFolder, '..', 'package.json'));
  let dir = dirname(require.resolve('@electric-sql/pglite'));
  while (!existsSync(join(dir, 'package.json'))) dir = dirname(dir);
  return (JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { version: string })
    .version;
}

/** What the image depends on: every migration file's name and bytes, and PGlite's version. */
function imageKey(): string {
  const hash = createHash('sha256').update(pgliteVersion());
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) =>
      a.name < b.name ? -1 : 1,
    )) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else hash.update(entry.name).update(readFileSync(path));
    }
  };
  walk(migrationsFolder);
  return hash.digest('hex').slice(0, 16);
}

let image: Promise<Blob> | undefined;

async function migratedImage(): Promise<Blob> {
  const file = join(tmpdir(), `meshbench-embedded-${imageKey()}.tar`);
  if (existsSync(file)) return new Blob([readFileSync(file)]);
  const fresh = await openDatabase({});
  try {
    await migrateDatabase(fresh);
    const made = await (fresh.image as () => Promise<Blob>)();
    // Another worker may be making the same image: each writes its own file, then renames.
    const own = `${file}.${process.pid}.tmp`;
    writeFileSync(own, Buffer.from(await made.arrayBuffer()));
    renameSync(own, file);
    return made;
  } finally {
    await fresh.close();
  }
}

/** A new in-memory embedded database, already migrated, of its own (no other test's rows). */
export async function openEmbeddedCopy(): Promise<Database> {
  image ??= migratedImage();
  return openDatabase({ image: await image });
}

/**
 * A migrated embedded data directory on disk, made once per image key like the image, for
 * API processes to start from a copy of: a process given an empty directory spends most of
 * its start in PGlite's initdb and the migrations. Not to be opened itself (copy it).
 */
export async function migratedDataDir(): Promise<string> {
  const dir = join(tmpdir(), `meshbench-embedded-${imageKey()}.datadir`);
  if (existsSync(dir)) return dir;
  const own = mkdtempSync(`${dir}.${process.pid}.`);
  const fresh = await openDatabase({ dataDir: own });
  try {
    await migrateDatabase(fresh);
  } finally {
    await fresh.close();
  }
  // Another worker may have made it meanwhile: its directory is as good as this one.
  try {
    renameSync(own, dir);
  } catch {
    rmSync(own, { recursive: true, force: true });
  }
  return dir;
}
