// /docs is the light page of every operation; the document stays at /docs/json and
// swagger-ui, for trying requests, answers at /docs/try.
import { describe, expect, it } from 'vitest';
import { backends, useServer } from '../test/harness.ts';
import { PAGE_CSP } from './security-headers.plugin.ts';

describe.each(backends)('the API docs on $name', (backend) => {
  const server = useServer(backend);

  it('serves the page, compressed, the document beside it and swagger-ui under /docs/try', async () => {
    const page = await fetch(`${server.url}/docs`, { headers: { 'accept-encoding': 'br' } });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toContain('text/html');
    expect(page.headers.get('content-encoding')).toBe('br');
    expect(page.headers.get('content-security-policy')).toBe(PAGE_CSP);
    const html = await page.text();
    const doc = (await (await fetch(`${server.url}/docs/json`)).json()) as {
      paths: Record<string, Record<string, unknown>>;
    };
    const operations = Object.values(doc.paths).reduce(
      (n, item) => n + Object.keys(item).length,
      0,
    );
    expect(html.match(/<details class="op"/g)?.length).toBe(operations);
    const ui = await fetch(`${server.url}/docs/try/`);
    expect(ui.status).toBe(200);
    expect(await ui.text()).toContain('swagger');
  });
});
