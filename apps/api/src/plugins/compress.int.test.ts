// Answers are compressed as the client accepts: brotli, gzip or deflate from 1 KiB, the same
// JSON as the plain answer once decoded, a read-cache hit included; small answers and
// clients that accept nothing else get the plain bytes; gzip request bodies still reach
// their ingest path's own inflater.
import { request } from 'node:http';
import { brotliDecompressSync, gunzipSync, inflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { backends, createRun, useServer } from '../test/harness.ts';

interface Raw {
  status: number;
  encoding: string | undefined;
  vary: string | undefined;
  cache: string | undefined;
  body: Buffer;
}

/** A GET with exactly the Accept-Encoding given, the body as it came over the wire. */
function get(url: string, acceptEncoding: string | null): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { headers: acceptEncoding === null ? {} : { 'accept-encoding': acceptEncoding } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            encoding: res.headers['content-encoding'],
            vary: res.headers.vary,
            cache: res.headers['x-meshbench-cache'] as string | undefined,
            body: Buffer.concat(chunks),
          }),
        );
      },
    );
    req.on('error', reject);
    req.end();
  });
}

const decoders: Record<string, (b: Buffer) => Buffer> = {
  br: brotliDecompressSync,
  gzip: gunzipSync,
  deflate: inflateSync,
};

describe.each(backends.slice(0, 1))('compressed answers on $name', (backend) => {
  const server = useServer(backend, { MESHBENCH_READ_CACHE_MS: '60000' });

  it('sends each encoding the client asks for, the same JSON as the plain answer', async () => {
    for (let i = 0; i < 12; i++) await createRun(server, { labels: { pad: 'x'.repeat(40) } });
    const url = `${server.url}/api/v1/runs?limit=12`;
    const plain = await get(url, null);
    expect(plain.status).toBe(200);
    expect(plain.encoding).toBeUndefined();
    expect(plain.body.length).toBeGreaterThan(1024);
    const json = JSON.parse(plain.body.toString());
    for (const encoding of ['br', 'gzip', 'deflate']) {
      const answer = await get(url, encoding);
      expect(answer.status, encoding).toBe(200);
      expect(answer.encoding, encoding).toBe(encoding);
      expect(answer.vary, encoding).toMatch(/accept-encoding/i);
      expect(answer.body.length, encoding).toBeLessThan(plain.body.length / 3);
      expect(JSON.parse(decoders[encoding]!(answer.body).toString()), encoding).toEqual(json);
    }
    // A browser's header: brotli first.
    const browser = await get(url, 'gzip, deflate, br');
    expect(browser.encoding).toBe('br');
    // The cache kept the plain answer (its hits above and here are compressed per client).
    const hit = await get(url, 'identity');
    expect(hit.cache).toBe('hit');
    expect(hit.encoding).toBeUndefined();
    expect(JSON.parse(hit.body.toString())).toEqual(json);
  });

  it('leaves answers under 1 KiB as they are', async () => {
    const small = await get(`${server.url}/api/v1/health`, 'gzip');
    expect(small.status).toBe(200);
    expect(small.body.length).toBeLessThan(1024);
    expect(small.encoding).toBeUndefined();
    expect(JSON.parse(small.body.toString())).toMatchObject({ status: 'ok' });
  });
});
