// The embedded database's files are its owner's alone: no other user can read or write
// them, whatever mode PGlite gives the files it writes.
import { mkdtempSync, readdirSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { migrateDatabase, openDatabase } from '@meshbench/db';
import { describe, expect, it } from 'vitest';

function modes(dir: string, out: Map<string, number> = new Map()): Map<string, number> {
  out.set(dir, statSync(dir).mode & 0o777);
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) modes(path, out);
    else out.set(path, statSync(path).mode & 0o777);
  }
  return out;
}

describe('the embedded database on disk', () => {
  it('is closed to other users while open, and its files are the owner’s once closed', async () => {
    const dataDir = join(mkdtempSync(join(tmpdir(), 'meshbench-modes-')), 'data');
    const database = await openDatabase({ dataDir });
    await migrateDatabase(database);
    expect(statSync(dataDir).mode & 0o777).toBe(0o700);
    await database.close();
    const all = modes(dataDir);
    expect(all.size).toBeGreaterThan(100);
    const open = [...all].filter(([, mode]) => (mode & 0o077) !== 0);
    expect(open).toEqual([]);
  }, 240_000); // A database on disk, migrated from nothing: slow on a busy machine.
});
