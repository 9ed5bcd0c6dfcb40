// The built app as the server sends it: hashed assets precompressed (brotli, else gzip) and
// cached for good, the page itself revalidated, and a favicon where browsers look for one.
import { expect, test } from '@playwright/test';

/** The page's own script, named by its content hash. */
async function entryScript(request: import('@playwright/test').APIRequestContext) {
  const html = await (await request.get('/')).text();
  const src = /<script type="module"[^>]*src="(\/assets\/[^"]+\.js)"/.exec(html)?.[1];
  expect(src, 'index.html names its entry script').toBeTruthy();
  return src as string;
}

test('hashed assets go out compressed by Accept-Encoding and cached as immutable', async ({
  request,
}) => {
  const src = await entryScript(request);
  const plain = await request.get(src, { headers: { 'accept-encoding': 'identity' } });
  expect(plain.status()).toBe(200);
  expect(plain.headers()['content-encoding']).toBeUndefined();
  const length = Number(plain.headers()['content-length']);
  for (const encoding of ['br', 'gzip']) {
    const answer = await request.get(src, { headers: { 'accept-encoding': encoding } });
    expect(answer.status()).toBe(200);
    const headers = answer.headers();
    expect(headers['content-encoding']).toBe(encoding);
    expect(headers.vary?.toLowerCase()).toContain('accept-encoding');
    expect(headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(headers['content-type']).toContain('javascript');
    // Compressed on the wire: half the file or less (minified JS compresses ~3x).
    expect(Number(headers['content-length'])).toBeLessThan(length / 2);
  }
  // A browser prefers brotli when it takes both.
  const both = await request.get(src, { headers: { 'accept-encoding': 'gzip, deflate, br' } });
  expect(both.headers()['content-encoding']).toBe('br');
  // Decoded, it is the same script.
  expect((await both.body()).toString()).toBe((await plain.body()).toString());
});

test('the page itself is revalidated on every visit, at / and at any route', async ({
  request,
}) => {
  for (const path of ['/', '/runs/00000000-0000-4000-8000-000000000000', '/history']) {
    const answer = await request.get(path);
    expect(answer.status()).toBe(200);
    expect(answer.headers()['content-type']).toContain('text/html');
    expect(answer.headers()['cache-control']).toBe('no-cache');
  }
});

test('a favicon answers at /favicon.ico and at the icon the page names', async ({
  page,
  request,
}) => {
  const ico = await request.get('/favicon.ico');
  expect(ico.status()).toBe(200);
  expect(ico.headers()['content-type']).toMatch(/^image\//);
  // An ICO file starts with reserved 0 and type 1 (icon).
  expect([...(await ico.body()).subarray(0, 4)]).toEqual([0, 0, 1, 0]);
  await page.goto('/');
  const href = await page.locator('link[rel="icon"]').first().getAttribute('href');
  const svg = await request.get(href as string);
  expect(svg.status()).toBe(200);
  expect(svg.headers()['content-type']).toContain('image/svg+xml');
});
