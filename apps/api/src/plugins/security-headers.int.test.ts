// Every response carries the headers that make it safe in a browser, and a shared report's
// page names the configured public URL, never the Host a client sent.

import { mkdtempSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createdReport } from '@meshbench/schema';
import { describe, expect, it } from 'vitest';
import { backends, createRun, jsonBody, useServer } from '../test/harness.ts';
import { DATA_CSP, PAGE_CSP } from './security-headers.plugin.ts';

const webRoot = mkdtempSync(join(tmpdir(), 'meshbench-web-'));
writeFileSync(
  join(webRoot, 'index.html'),
  '<html><head><title>meshbench</title></head><body><div id="root"></div></body></html>',
);

/** GET with a Host header of the client's choosing (fetch does not let one set it). */
function getWithHost(url: string, host: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { headers: { host } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c) => {
        body += c;
      });
      res.on('end', () => resolve(body));
    });
    req.on('error', reject);
    req.end();
  });
}

const expectSafe = (response: Response, csp: string) => {
  expect(response.headers.get('content-security-policy')).toBe(csp);
  expect(response.headers.get('x-content-type-options')).toBe('nosniff');
  expect(response.headers.get('x-frame-options')).toBe('DENY');
  expect(response.headers.get('referrer-policy')).toBe('no-referrer');
};

describe.each(backends)('security headers on $name', (backend) => {
  const server = useServer(
    backend,
    { MESHBENCH_PUBLIC_URL: 'https://meshbench.example.com/' },
    { webRoot },
  );

  it('sends them on pages, JSON, errors and unknown paths', async () => {
    expectSafe(await fetch(`${server.url}/`), PAGE_CSP);
    expectSafe(await fetch(`${server.url}/runs/some-client-route`), PAGE_CSP);
    expectSafe(await fetch(`${server.url}/api/v1/health`), DATA_CSP);
    expectSafe(await fetch(`${server.url}/api/v1/runs/nope`), DATA_CSP);
    expectSafe(await fetch(`${server.url}/api/v1/nothing-here`), DATA_CSP);
    expectSafe(await fetch(`${server.url}/api/v1/runs`, { method: 'POST' }), DATA_CSP);
  });

  it("writes og:url from MESHBENCH_PUBLIC_URL whatever the request's Host", async () => {
    const run = await createRun(server);
    const report = await server.json('/reports', jsonBody({ runs: [run.id] }), createdReport);
    expect(report.status).toBe(201);
    const html = await getWithHost(`${server.url}/r/${report.body.slug}`, 'evil.example');
    expect(html).toContain(
      `<meta property="og:url" content="https://meshbench.example.com/r/${report.body.slug}" />`,
    );
    expect(html).not.toContain('evil.example');
  });
});

describe.each(backends)('og:url without a public URL on $name', (backend) => {
  const server = useServer(backend, {}, { webRoot });

  it('leaves og:url out rather than trust the Host header', async () => {
    const run = await createRun(server);
    const report = await server.json('/reports', jsonBody({ runs: [run.id] }), createdReport);
    const html = await getWithHost(`${server.url}/r/${report.body.slug}`, 'evil.example');
    expect(html).toContain('og:title');
    expect(html).not.toContain('og:url');
    expect(html).not.toContain('evil.example');
  });
});
