import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { apiDocsHtml } from './api-docs-page.ts';

const doc = JSON.parse(
  readFileSync(new URL('../../../../docs/openapi.json', import.meta.url), 'utf8'),
) as Parameters<typeof apiDocsHtml>[0] & { paths: Record<string, Record<string, unknown>> };

describe('the API docs page', () => {
  const html = apiDocsHtml(doc);

  it('lists every operation of the document, with its summary', () => {
    const ops = Object.entries(doc.paths).flatMap(([path, item]) =>
      Object.keys(item).map((m) => ({ path, method: m })),
    );
    expect(ops.length).toBeGreaterThan(40);
    expect(html.match(/<details class="op"/g)?.length).toBe(ops.length);
    expect(html).toContain(
      '<span class="m get">GET</span> <code>/api/v1/runs/{id}/changes/{changeId}/propagation</code>',
    );
  });

  it('stays light: a page, not an application (swagger-ui is at /docs/try)', () => {
    expect(Buffer.byteLength(html)).toBeLessThan(200_000);
    expect(html).not.toContain('<script');
    expect(html).toContain('href="/docs/try"');
  });

  it('escapes what the document says', () => {
    const page = apiDocsHtml({
      info: { title: '<t>' },
      paths: { '/x': { get: { summary: 'a <b> & `c`' } } },
    });
    expect(page).toContain('<title>&lt;t&gt;</title>');
    expect(page).toContain('a &lt;b&gt; &amp; <code>c</code>');
  });
});
