// A ctid is unique only within one table: on a table partitioned by run (0031) the same
// ctid is on every partition, so a statement that picks rows by ctid must name their run (or
// batch) beside it, or it changes other runs' rows at the same places. The int tests
// staged-batches and staged-results show it on the two discards; this holds every statement.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { RUN_PARTITIONED_TABLES } from '@meshbench/db';
import { describe, expect, it } from 'vitest';

const DIR = join(import.meta.dirname);
const sources = readdirSync(DIR)
  .filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'))
  .map((f) => ({ file: f, text: readFileSync(join(DIR, f), 'utf8') }));

/** Each `delete from <table> where <condition up to ctid>` or `update ... where ...ctid`. */
function ctidStatements(text: string) {
  const found: { table: string; before: string }[] = [];
  for (const m of text.matchAll(/(?:delete from|update)\s+(\S+)\s+where\s+([^`]*?)\bctid\b/g))
    found.push({ table: m[1] as string, before: m[2] as string });
  return found;
}

describe('statements that pick rows by ctid', () => {
  it('name the run (or batch) beside the ctid, unless their table is not partitioned', () => {
    const all = sources.flatMap((s) => ctidStatements(s.text).map((c) => ({ ...c, file: s.file })));
    // The repositories have such statements (the pattern still finds them).
    expect(all.length).toBeGreaterThanOrEqual(6);
    const unnamed = all.filter(
      (c) =>
        !/\b(run_id|batch_id)\b|\$\{(where|ofBatch)\}/.test(c.before) &&
        (RUN_PARTITIONED_TABLES.includes(c.table) || c.table.includes('${')),
    );
    expect(unnamed).toEqual([]);
  });

  it('find one that does not', () => {
    const bad = ctidStatements(
      'sql`delete from observations where ctid = any(array(select ctid from observations))`',
    );
    expect(bad).toEqual([{ table: 'observations', before: '' }]);
  });
});
