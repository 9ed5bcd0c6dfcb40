// The API docs list every route by its summary: each operation of the committed OpenAPI
// document has one, on one short line, and no two share one.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const spec = JSON.parse(
  readFileSync(new URL('../../../../docs/openapi.json', import.meta.url), 'utf8'),
) as { paths: Record<string, Record<string, { summary?: string }>> };

const operations = Object.entries(spec.paths).flatMap(([path, ops]) =>
  Object.entries(ops).map(([method, op]) => ({ route: `${method.toUpperCase()} ${path}`, op })),
);

describe('the OpenAPI document', () => {
  it('names every route with a summary of one short line', () => {
    expect(operations.length).toBeGreaterThan(50);
    const bad = operations
      .filter(({ op }) => !op.summary || op.summary.length > 80 || op.summary.includes('\n'))
      .map(({ route }) => route);
    expect(bad).toEqual([]);
  });
  it('gives no two routes the same summary', () => {
    const seen = new Map<string, string>();
    const twice = operations.flatMap(({ route, op }) => {
      const other = seen.get(op.summary ?? '');
      seen.set(op.summary ?? '', route);
      return other ? [`${other} / ${route}: ${op.summary}`] : [];
    });
    expect(twice).toEqual([]);
  });
});
